import type { AssetStatus, BackgroundMode, CharacterType, JointSet, MotionType, RenderStage, VideoKind } from '../../contracts/enums.js';
/**
 * Table types for Kysely. Conventions shared by both dialects:
 * - timestamps are ISO-8601 UTC strings with milliseconds (`2026-11-22T03:00:00.000Z`), which sort
 *   lexicographically in both SQLite and PostgreSQL;
 * - money is integer thousandths of a credit (`*_milli`);
 * - booleans are integers 0/1 (SQLite has no boolean type);
 * - JSON documents are TEXT (parsed by repositories).
 */

export interface AccountsTable {
  id: string;
  name: string;
  default_character_id: string | null;
  default_motion_id: string | null;
  created_at: string;
}

export interface ApiKeysTable {
  id: string;
  account_id: string;
  /** sha256 hex of the whole key; the key itself is never stored. */
  secret_hash: string;
  /** First characters of the key, for display in listings. */
  display_prefix: string;
  created_at: string;
  revoked_at: string | null;
  last_used_at: string | null;
}

export interface BalancesTable {
  account_id: string;
  /** What can still be spent: grants - charges - open reservations. Never negative (CHECK). */
  available_milli: number;
  reserved_milli: number;
  updated_at: string;
}

export interface LedgerTable {
  id: string;
  account_id: string;
  /** The resource (or grant) the movement belongs to. (resource_id, kind) is unique: no double billing. */
  resource_id: string;
  kind: 'grant' | 'charge' | 'refund' | 'reserve' | 'settle' | 'release';
  /** Signed change of `available_milli` (reserve -, release +, settle + unused part, charge -, refund +, grant +). */
  amount_milli: number;
  /** Signed change of `reserved_milli`. */
  reserved_delta_milli: number;
  note: string | null;
  created_at: string;
}

export type { AssetStatus } from '../../contracts/enums.js';

export interface CharactersTable {
  id: string;
  account_id: string;
  name: string;
  type: CharacterType;
  status: AssetStatus;
  progress: number | null;
  enhance: number;
  joint_set: JointSet;
  model_precision: number | null;
  filter_low_quality: number;
  render_thumbnail: number;
  task_id: string | null;
  vsplat_status: AssetStatus | null;
  /** `upload` (source_key in storage), `url` (source_url), `builtin`. */
  source_kind: 'upload' | 'url' | 'builtin';
  source_key: string | null;
  source_url: string | null;
  /** Storage prefix of the processed assets (character.json, texture.png, thumbnail.png). */
  assets_key: string | null;
  /** Internal failure reason (never shown on the asset: its public `error` is always null). */
  failure_json: string | null;
  charge_milli: number;
  request_id: string | null;
  service_source: string | null;
  created_at: string;
  updated_at: string;
  completed_at: string | null;
  deleted_at: string | null;
  /** `model` sent to the Legacy POST /api/characters/preprocess, recorded as is; null otherwise. */
  legacy_model?: string | null;
  /** Digest of the request that first used `task_id` (migrations/0006); null without a task_id. */
  task_fingerprint?: string | null;
}

export interface MotionsTable {
  id: string;
  account_id: string;
  name: string;
  type: MotionType;
  status: AssetStatus;
  progress: number | null;
  enable_smoothing: number;
  target_fps: number | null;
  joint_set: JointSet;
  task_id: string | null;
  /** Digest of the request that first used `task_id` (migrations/0006); null without a task_id. */
  task_fingerprint?: string | null;
  glb_status: AssetStatus | null;
  source_kind: 'upload' | 'url' | 'template';
  source_key: string | null;
  source_url: string | null;
  template_id: string | null;
  assets_key: string | null;
  duration_ms: number | null;
  failure_json: string | null;
  request_id: string | null;
  service_source: string | null;
  created_at: string;
  updated_at: string;
  completed_at: string | null;
  deleted_at: string | null;
}

/** Renders, H3 videos and character-animation videos share the Videos read resource and this table. */
export interface VideosTable {
  id: string;
  account_id: string;
  kind: VideoKind;
  /** H3 and animation requests: the validated generation parameters (JSON). */
  params_json?: string | null;
  /** H3: the seed used (given or drawn at creation). */
  seed?: number | null;
  /** H3 with enhance_mode=prompt: the expanded prompt the generator played. */
  enhanced_prompt?: string | null;
  status: AssetStatus;
  progress: number | null;
  stage: RenderStage | null;
  background_mode: BackgroundMode;
  bg_color: string | null;
  /** JSON: where the character comes from ({kind:'character',id} | {kind:'upload',key} | {kind:'url',url} | {kind:'builtin'}). */
  character_source: string;
  /** JSON: where the motion comes from ({kind:'motion',id} | {kind:'upload',key} | {kind:'url',url} | {kind:'template',id}). */
  motion_source: string;
  /** Storage keys of the outputs once ready. */
  video_key: string | null;
  alpha_key: string | null;
  estimated_ms: number;
  duration_ms: number | null;
  reserved_milli: number;
  /** JSON error envelope body (`{code,message,...}`) when failed. */
  error_json: string | null;
  request_id: string | null;
  service_source: string | null;
  draft_id: string | null;
  created_at: string;
  updated_at: string;
  started_at: string | null;
  completed_at: string | null;
}

export interface RenderEventsTable {
  id: string;
  render_id: string;
  sequence: number;
  type: 'queued' | 'processing' | 'progress' | 'ready' | 'failed' | 'cancelled';
  /** JSON of the render event data (spec section 6), URLs excluded (they are signed at send time). */
  data_json: string;
  occurred_at: string;
}

export interface JobsTable {
  id: string;
  type: string;
  /** The resource this job processes; (type, resource_id) is unique so enqueueing twice is harmless. */
  resource_id: string;
  payload_json: string;
  status: 'queued' | 'active' | 'completed' | 'failed' | 'cancelled';
  attempts: number;
  max_attempts: number;
  run_at: string;
  lease_owner: string | null;
  lease_expires_at: string | null;
  last_error: string | null;
  created_at: string;
  updated_at: string;
}

export interface DraftsTable {
  id: string;
  account_id: string;
  /** JSON of the declared direct-form fields, file fields replaced by upload IDs. */
  spec_json: string;
  status: 'open' | 'consumed';
  render_id: string | null;
  expires_at: string;
  created_at: string;
}

export interface UploadsTable {
  id: string;
  draft_id: string;
  account_id: string;
  field: string;
  content_type: string;
  size_bytes: number;
  sha256: string | null;
  storage_key: string;
  status: 'pending' | 'uploaded';
  expires_at: string;
  uploaded_at: string | null;
}

export interface IdempotencyKeysTable {
  account_id: string;
  key: string;
  request_hash: string;
  render_id: string;
  created_at: string;
  expires_at: string;
}

/** See migrations/0005-idempotent-requests.ts. */
export interface IdempotentRequestsTable {
  account_id: string;
  key: string;
  /** e.g. `POST /v1/characters`: a key names one request to one endpoint. */
  operation: string;
  /** SHA-256 over the ordered parts below. */
  fingerprint: string;
  /** `[name, sha256-hex]` per text field or file part, in the order sent (digests only, never bytes). */
  parts_json: string;
  state: 'pending' | 'done';
  resource_id: string | null;
  status_code: number | null;
  locked_until: string;
  created_at: string;
  expires_at: string;
}

export interface Database {
  accounts: AccountsTable;
  api_keys: ApiKeysTable;
  balances: BalancesTable;
  ledger: LedgerTable;
  characters: CharactersTable;
  motions: MotionsTable;
  videos: VideosTable;
  render_events: RenderEventsTable;
  jobs: JobsTable;
  drafts: DraftsTable;
  uploads: UploadsTable;
  idempotency_keys: IdempotencyKeysTable;
  idempotent_requests: IdempotentRequestsTable;
}
