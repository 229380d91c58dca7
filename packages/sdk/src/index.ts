export { Marionette, isTerminal } from './client.js';
export type { MarionetteOptions, RenderCreateParams, WaitOptions, EventsOptions, UploadProgress } from './client.js';
export * from './errors.js';
export type { MediaInput, MediaSource, NamedMedia } from './inputs.js';
export { PageIterator, type Page } from './pagination.js';
export type { RetryInfo } from './transport.js';
export type * from './types.js';
export type { paths, components, operations } from './generated/openapi.js';
export { API_VERSION, SDK_VERSION } from './version.js';
