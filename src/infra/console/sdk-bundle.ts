import { build, type Plugin } from 'esbuild';

/**
 * The SDK (packages/sdk/src) as one browser ES module for the web console, built with esbuild from
 * the TypeScript sources in memory: at server start (`warm()`), or at the first request of a process
 * that did not warm it (tests). Nothing is written to disk, so the served bundle can never be older
 * than the sources it was built from.
 */
export interface SdkBundle {
  /** The bundled module's text (built once per process, then cached). */
  code(): Promise<string>;
  warm(): Promise<void>;
}

/** The SDK loads `./node.js` (file paths, saving downloads) on demand; in a browser it does not exist. */
const noNodeHelpers: Plugin = {
  name: 'no-node-helpers',
  setup(b) {
    b.onResolve({ filter: /^\.\/node\.js$/ }, () => ({ path: 'node-helpers', namespace: 'console-stub' }));
    b.onLoad({ filter: /.*/, namespace: 'console-stub' }, () => ({
      contents:
        'const no = () => { throw new TypeError("file paths are Node-only; pass a File or Blob in a browser"); };\n' +
        'export const fileBlob = no, baseName = no, saveBody = no;\n',
      loader: 'js',
    }));
  },
};

export function sdkBundle(entryFile: string): SdkBundle {
  let pending: Promise<string> | null = null;
  const code = () => {
    pending ??= build({
      entryPoints: [entryFile],
      bundle: true,
      format: 'esm',
      platform: 'browser',
      target: 'es2022',
      minify: true,
      write: false,
      legalComments: 'none',
      plugins: [noNodeHelpers],
      logLevel: 'silent',
    }).then(
      (r) => r.outputFiles[0]!.text,
      (e) => {
        pending = null; // a failed build is tried again at the next request
        throw e;
      },
    );
    return pending;
  };
  return { code, warm: async () => void (await code()) };
}
