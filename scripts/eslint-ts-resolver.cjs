// Import resolver for eslint-plugin-boundaries: sources import TypeScript files by their emitted
// `.js` name (NodeNext), so a relative `./x.js` is looked up as `./x.ts` first.
const { existsSync } = require('node:fs');
const { dirname, resolve } = require('node:path');
const { builtinModules, createRequire } = require('node:module');

exports.interfaceVersion = 2;
exports.resolve = function resolveImport(source, file) {
  if (source.startsWith('node:') || builtinModules.includes(source)) return { found: true, path: null };
  if (source.startsWith('.')) {
    const abs = resolve(dirname(file), source);
    for (const candidate of [abs.replace(/\.(m|c)?js$/, '.$1ts'), abs, `${abs}.ts`, `${abs}/index.ts`]) {
      if (existsSync(candidate)) return { found: true, path: candidate };
    }
    return { found: false };
  }
  try {
    return { found: true, path: createRequire(file).resolve(source) };
  } catch {
    return { found: false };
  }
};
