import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';

/**
 * docs/benchmarks.md is shared by several benchmarks; each owns one section between markers
 * `<!-- bench:NAME -->` and `<!-- /bench:NAME -->`, replaced in place on every run.
 */
export const BENCH_DOC = resolve(import.meta.dirname, '../docs/benchmarks.md');

export function writeSection(name: string, markdown: string): void {
  const start = `<!-- bench:${name} -->`;
  const end = `<!-- /bench:${name} -->`;
  const block = `${start}\n${markdown.trim()}\n${end}`;
  let doc = existsSync(BENCH_DOC)
    ? readFileSync(BENCH_DOC, 'utf8')
    : '# Benchmarks\n\nProduced by `npm run bench -- <name>`; each section says which command wrote it and when.\n';
  const i = doc.indexOf(start);
  const j = doc.indexOf(end);
  if (i >= 0 && j > i) doc = doc.slice(0, i) + block + doc.slice(j + end.length);
  else doc = doc.trimEnd() + '\n\n' + block + '\n';
  writeFileSync(BENCH_DOC, doc);
}

export function machineLine(): string {
  return `Node ${process.version}, ${process.platform}/${process.arch}, ${new Date().toISOString().slice(0, 10)}`;
}
