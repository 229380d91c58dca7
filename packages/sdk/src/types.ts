/** Friendly names for the generated wire types (src/generated/openapi.ts). */
import type { components, operations } from './generated/openapi.js';

type Json<Op extends keyof operations, Status extends number = 200> =
  operations[Op]['responses'] extends Record<Status, { content: { 'application/json': infer T } }> ? T : never;

export type Render = Json<'post_v1_renders'>;
/** A render, H3 video (vid_) or character-animation video (anim_) as GET /v1/videos/{id} returns it. */
export type Video = Json<'get_v1_videos_video_id'>;
export type VideoPage = Json<'get_v1_videos'>;
export type VideoStatus = Video['status'];
export type Character = Json<'get_v1_characters_character_id'>;
export type Motion = Json<'get_v1_motions_motion_id'>;
export type MotionTemplate = Json<'get_v1_motions_templates'>['items'][number];
export type Credits = Json<'get_v1_credits'>;
export type LedgerEntry = Json<'get_v1_credits_ledger'>['items'][number];
export type CharacterExport = Json<'get_v1_characters_character_id_export'>;
export type MotionExport = Json<'get_v1_motions_motion_id_export'>;
export type Draft = Json<'post_v1_renders_prepare'>;
export type DraftRequest = NonNullable<operations['post_v1_renders_prepare']['requestBody']>['content']['application/json'];
export type ErrorEnvelope = components['schemas']['Error'];
export type ErrorCode = ErrorEnvelope['error']['code'];
export type BackgroundMode = 'original' | 'solid' | 'transparent';

export type CharacterCreateFields = Omit<
  NonNullable<operations['post_v1_characters']['requestBody']>['content']['multipart/form-data'],
  'image' | 'image_url'
>;
export type MotionCreateFields = Omit<
  NonNullable<operations['post_v1_motions']['requestBody']>['content']['multipart/form-data'],
  'video' | 'video_url' | 'motion_video' | 'motion_video_url'
>;
export type VideoCreateFields = Omit<
  NonNullable<operations['post_v1_videos']['requestBody']>['content']['multipart/form-data'],
  | 'first_frame_image'
  | 'last_frame_image'
  | 'character_image'
  | 'driving_video'
  | 'first_frame_image_url'
  | 'last_frame_image_url'
  | 'character_image_url'
  | 'driving_video_url'
>;
export type VideoListQuery = NonNullable<operations['get_v1_videos']['parameters']['query']>;

/** Render event data (spec section 6); heartbeats carry none. */
export interface RenderEventData {
  event_id: string;
  sequence: number;
  id: string;
  status: VideoStatus;
  stage: string | null;
  progress: number | null;
  video_url: string | null;
  alpha_url: string | null;
  occurred_at: string;
  completed_at: string | null;
  error: Video['error'];
}
export type RenderEventName = 'snapshot' | 'queued' | 'processing' | 'progress' | 'ready' | 'failed' | 'cancelled';
export type RenderEvent =
  { event: RenderEventName; id: string | null; data: RenderEventData } | { event: 'heartbeat'; id: string | null; data: null };
