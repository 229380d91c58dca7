/**
 * The storage key layout: the one place that spells where each object lives. Keys are relative,
 * slash-separated (see the storage port). Every object of a resource sits under the resource's
 * prefix, so deleting a resource's objects is one `deletePrefix`.
 *
 *   characters/{char_id}/source             the uploaded picture (file sources)
 *   characters/{char_id}/assets/{file}      the engine's analysis (CHARACTER_ASSET_FILES, vsplat)
 *   motions/{motion_id}/source              the uploaded driving video
 *   motions/{motion_id}/assets/{file}       the extracted motion (MOTION_ASSET_FILES, glb/fbx)
 *   renders/{id}/inputs/{image|video|first_frame|last_frame}   one-time inputs of a render or video
 *   renders/{id}/output/{video|alpha}.mp4   finished outputs (renders, anim_ and vid_ videos)
 *   drafts/{draft_id}/{image|motion_video}  draft uploads (signed PUTs)
 *   builtin/character/assets/{file}         the shipped character, analysed once per installation
 */
export type RenderInputName = 'image' | 'video' | 'first_frame' | 'last_frame';
export type DraftFileField = 'image' | 'motion_video';

export const storageKeys = {
  characterPrefix: (id: string) => `characters/${id}/`,
  characterSource: (id: string) => `characters/${id}/source`,
  characterAssets: (id: string) => `characters/${id}/assets`,
  motionPrefix: (id: string) => `motions/${id}/`,
  motionSource: (id: string) => `motions/${id}/source`,
  motionAssets: (id: string) => `motions/${id}/assets`,
  /** A file inside an assets prefix (as recorded in the row's `assets_key`). */
  assetFile: (assetsKey: string, file: string) => `${assetsKey}/${file}`,
  renderPrefix: (id: string) => `renders/${id}/`,
  renderInput: (id: string, which: RenderInputName) => `renders/${id}/inputs/${which}`,
  renderOutputs: (id: string) => ({ videoKey: `renders/${id}/output/video.mp4`, alphaKey: `renders/${id}/output/alpha.mp4` }),
  draftPrefix: (draftId: string) => `drafts/${draftId}/`,
  draftUpload: (draftId: string, field: DraftFileField) => `drafts/${draftId}/${field}`,
  builtinCharacterAssets: 'builtin/character/assets',
} as const;
