import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { ERROR_CATALOGUE } from '../../src/contracts/errors.js';

/** docs/errors.md lists exactly the catalogue's codes, with the same status, retryable and action. */

const DOC = resolve(import.meta.dirname, '../../docs/errors.md');

/** Rows of the markdown table whose header row is `header`, as arrays of trimmed cells. */
function tableAfter(markdown: string, header: string[]): string[][] {
  const lines = markdown.split('\n');
  const start = lines.findIndex((l) => cells(l).join('|') === header.join('|'));
  assert.ok(start >= 0, `no table with header ${header.join(' | ')}`);
  assert.match(lines[start + 1], /^\|(\s*:?-+:?\s*\|)+\s*$/, 'header separator row');
  const rows: string[][] = [];
  for (const line of lines.slice(start + 2)) {
    if (!line.trim().startsWith('|')) break;
    rows.push(cells(line));
  }
  return rows;
}

function cells(line: string): string[] {
  const t = line.trim();
  if (!t.startsWith('|')) return [];
  return t
    .replace(/^\|/, '')
    .replace(/\|$/, '')
    .split('|')
    .map((c) => c.trim());
}

const unquote = (s: string) => s.replace(/^`|`$/g, '');

test('the catalogue table in docs/errors.md matches src/contracts/errors.ts exactly', async () => {
  const rows = tableAfter(await readFile(DOC, 'utf8'), ['Code', 'Status', 'Retryable', 'Action', 'Meaning']);
  const documented = rows.map((r) => unquote(r[0]));
  assert.equal(new Set(documented).size, documented.length, 'a code is listed twice');
  assert.deepEqual([...documented].sort(), Object.keys(ERROR_CATALOGUE).sort(), 'documented codes differ from the catalogue');
  for (const [code, status, retryable, action, meaning] of rows) {
    const spec = ERROR_CATALOGUE[unquote(code) as keyof typeof ERROR_CATALOGUE];
    assert.equal(Number(status), spec.status, `${code} status`);
    assert.equal(retryable, String(spec.retryable), `${code} retryable`);
    assert.equal(unquote(action), spec.action, `${code} action`);
    assert.ok(meaning.length > 0, `${code} has no meaning`);
  }
});

test('every code named in the overrides table exists in the catalogue', async () => {
  const rows = tableAfter(await readFile(DOC, 'utf8'), ['Situation', 'Code', 'Status', 'Action', '`details`']);
  assert.ok(rows.length > 0);
  for (const [situation, code, status] of rows) {
    assert.ok(unquote(code) in ERROR_CATALOGUE, `${situation}: unknown code ${code}`);
    assert.match(status, /^(400|401|402|403|404|405|409|422|429|500|503)$/, `${situation}: status ${status}`);
  }
});
