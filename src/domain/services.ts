import type { Ports } from './ports/index.js';
import { bindDeps } from './bind.js';
import { authenticate } from './accounts/accounts.service.js';
import { balanceOf, ledgerOf } from './billing/billing.service.js';
import {
  createCharacter,
  deleteCharacter,
  exportCharacter,
  getCharacter,
  listCharacters,
  listCharactersPage,
} from './characters/characters.service.js';
import {
  createMotion,
  deleteMotion,
  exportMotion,
  getMotion,
  importMotion,
  listMotions,
  listMotionsByOffset,
  listTemplates,
} from './motions/motions.service.js';
import { createDefaultRender, createRenderFromForm, findRenderRow, renderDownloadUrl } from './renders/renders.service.js';
import { cancelOwnedRender } from './renders/render-cancel.service.js';
import { createRenderFromDraft, prepareDraft } from './drafts/drafts.service.js';
import { acceptUpload } from './drafts/draft-uploads.service.js';
import { createVideo } from './videos/video-create.service.js';
import { getVideo, listVideos } from './videos/videos.service.js';
import { presentVideo, signedOutputUrls } from './videos/videos.presenter.js';
import { openRenderStream } from './events/render-stream.service.js';
import { RenderStreamHub } from './events/render-stream.hub.js';
import { characterThumbnailUrl, motionThumbnail } from './assets/asset-thumbnails.js';
import { runIdempotent, type IdempotentRequest } from './idempotency/idempotency.service.js';

/**
 * The services the HTTP layer receives: each is a set of domain functions bound to exactly the
 * ports it declares (a `Pick<Ports, ...>`). The composition root (src/main/wire.ts) builds them
 * from the adapters; routes import their types only. A new feature adds its service here.
 */
export const accountsService = (db: Ports['db']) => bindDeps(db, { authenticate });
export const creditsService = (db: Ports['db']) => bindDeps(db, { balanceOf, ledgerOf });

export const charactersService = (deps: Pick<Ports, 'clock' | 'config' | 'db' | 'engine' | 'queue' | 'storage'>) =>
  bindDeps(deps, {
    createCharacter,
    listCharacters,
    listCharactersPage,
    getCharacter,
    deleteCharacter,
    exportCharacter,
    characterThumbnailUrl,
  });

export const motionsService = (deps: Pick<Ports, 'clock' | 'config' | 'db' | 'engine' | 'queue' | 'storage'>) =>
  bindDeps(deps, {
    createMotion,
    importMotion,
    listTemplates,
    listMotions,
    listMotionsByOffset,
    getMotion,
    deleteMotion,
    exportMotion,
    motionThumbnail,
  });

type RenderingPorts = Pick<Ports, 'clock' | 'config' | 'db' | 'engine' | 'pubsub' | 'queue' | 'storage' | 'tmpDir'>;

export const rendersService = (deps: RenderingPorts) =>
  bindDeps(deps, { createRenderFromForm, createDefaultRender, renderDownloadUrl, findRenderRow, cancelOwnedRender });
export const draftsService = (deps: RenderingPorts) => bindDeps(deps, { prepareDraft, createRenderFromDraft });
export const videosService = (deps: RenderingPorts) =>
  bindDeps(deps, { createVideo, getVideo, listVideos, presentVideo, signedOutputUrls });

/** Signed object reads and draft uploads (`/files/...`): the signature is the credential. */
export const filesService = (deps: Pick<Ports, 'clock' | 'config' | 'db' | 'engine' | 'signer' | 'storage' | 'tmpDir'>) => ({
  ...bindDeps(deps, { acceptUpload }),
  verify: deps.signer.verify.bind(deps.signer),
  stat: deps.storage.stat.bind(deps.storage),
  read: deps.storage.read.bind(deps.storage),
});

/** Render event streams (SSE): the opening read and a hub for live delivery. */
export const streamsService = (deps: Pick<Ports, 'config' | 'db' | 'pubsub' | 'storage'>) => ({
  ...bindDeps(deps, { openRenderStream }),
  hub: (opts: { heartbeatMs: number; pollMs: number }) => new RenderStreamHub(deps, opts),
});

/** Idempotency-Key on every create (docs/retrying.md): the rules live in the database. */
export const idempotencyService = (deps: Pick<Ports, 'config' | 'db'>) => ({
  run: <T>(req: IdempotentRequest<T>) => runIdempotent(deps.db, req, deps.config.idempotency),
});

export type AccountsService = ReturnType<typeof accountsService>;
export type IdempotencyService = ReturnType<typeof idempotencyService>;
export type CreditsService = ReturnType<typeof creditsService>;
export type CharactersService = ReturnType<typeof charactersService>;
export type MotionsService = ReturnType<typeof motionsService>;
export type RendersService = ReturnType<typeof rendersService>;
export type DraftsService = ReturnType<typeof draftsService>;
export type VideosService = ReturnType<typeof videosService>;
export type FilesService = ReturnType<typeof filesService>;
export type StreamsService = ReturnType<typeof streamsService>;

/** Everything the HTTP layer is given. */
export interface Services {
  accounts: AccountsService;
  credits: CreditsService;
  characters: CharactersService;
  motions: MotionsService;
  renders: RendersService;
  drafts: DraftsService;
  videos: VideosService;
  files: FilesService;
  streams: StreamsService;
  idempotency: IdempotencyService;
  /** The same services built with the Legacy upload limits, for the deprecated /api (docs/legacy.md). */
  legacy: ServiceSet;
}

/** One set of services (V1's, or the same with the Legacy limits). */
export type ServiceSet = Omit<Services, 'legacy'>;
