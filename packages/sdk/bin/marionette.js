#!/usr/bin/env node
// The published package runs the compiled CLI; in this repository (no dist/) it runs the sources via tsx.
import { existsSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';

const here = fileURLToPath(new URL('.', import.meta.url));
const built = new URL('../dist/cli/bin.js', import.meta.url);
if (existsSync(fileURLToPath(built))) {
  await import(built.href);
} else {
  const { register } = await import('tsx/esm/api');
  register();
  await import(pathToFileURL(`${here}../src/cli/bin.ts`).href);
}
