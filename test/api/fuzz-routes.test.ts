import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import fc from 'fast-check';
import { ERROR_CATALOGUE } from '../../src/contracts/errors.js';
import { startService, type TestService } from '../helpers/harness.js';

/**
 * Property-based test over every operation of GET /v1/openapi.json (issue #14). For each one,
 * fast-check builds requests from its parameters and body schema with random and boundary values,
 * wrong types, huge strings, odd Unicode and duplicate fields, sends them, and checks:
 *   - never a 5xx;
 *   - every 4xx is the error envelope, with a catalogued code and request_id = X-Request-Id (on
 *     the Legacy /api routes, the Legacy envelope `detail`);
 *   - a refused request moves no credits (balance, reservations and ledger unchanged);
 *   - nothing is left in the data directory's tmp/ once the answers are in.
 * Bounded: FUZZ_RUNS requests per operation (default 12) and a time limit per operation, so the
 * whole file stays well under a minute on an idle machine. FUZZ_SEED replays a failing run.
 */
const RUNS = Number(process.env.FUZZ_RUNS ?? 12);
const SEED = process.env.FUZZ_SEED === undefined ? Date.now() % 2 ** 31 : Number(process.env.FUZZ_SEED);
const PER_OPERATION_MS = 6_000;

interface Operation {
  method: string;
  path: string;
  params: { name: string; in: string; required: boolean; schema: any }[];
  json?: any;
  multipart?: any;
  public: boolean;
}

function operations(doc: any): Operation[] {
  const out: Operation[] = [];
  for (const [path, methods] of Object.entries<any>(doc.paths)) {
    for (const [method, op] of Object.entries<any>(methods)) {
      out.push({
        method: method.toUpperCase(),
        path,
        params: op.parameters ?? [],
        json: op.requestBody?.content?.['application/json']?.schema,
        multipart: op.requestBody?.content?.['multipart/form-data']?.schema,
        public: Array.isArray(op.security) && op.security.length === 0,
      });
    }
  }
  return out;
}

// ---- value generators ---------------------------------------------------------------------------

const oddUnicode = fc.constantFrom(
  '\u202e\u0645\u0631\u062d\u0628\u0627', // RTL override + Arabic
  'e\u0301\u0301\u0301', // stacked combining marks
  '\u200b\u200d\ufeff', // zero-width characters and a BOM
  '\ud83d\ude00\ud83c\udff3\ufe0f\u200d\ud83c\udf08', // emoji, ZWJ sequence
  '\u0000nul', // NUL
  '%00%ff%', // broken percent-encoding
  '../../etc/passwd',
  '\u{10ffff}\u{e000}', // non-characters / private use
  'ＡＢＣ１２３', // full-width
  "'; drop table videos; --",
);
const huge = fc.constantFrom('x'.repeat(10_000), 'é'.repeat(70_000), '9'.repeat(400));
const boundaryNumber = fc.constantFrom(0, -1, 1, 2 ** 31, 2 ** 53, -(2 ** 53), 1e308, -0, 0.5, 1e-9);
const idLike = fc.constantFrom(
  'render_01HZZZZZZZZZZZZZZZZZZZZZZZ',
  'vid_01HZZZZZZZZZZZZZZZZZZZZZZZ',
  'char_x',
  'mot_',
  'draft_01HZ',
  'anim_01HZZZZZZZZZZZZZZZZZZZZZZZ',
);

/** Any JSON value, biased towards the awkward ones. */
const weird: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 3, arbitrary: fc.string() },
  { weight: 2, arbitrary: oddUnicode },
  { weight: 1, arbitrary: huge },
  { weight: 2, arbitrary: boundaryNumber },
  { weight: 1, arbitrary: fc.constantFrom(true, false, null) },
  { weight: 1, arbitrary: idLike },
  { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 3 }) },
  { weight: 1, arbitrary: fc.array(fc.string(), { maxLength: 3 }) },
);

/** A value for one schema: usually of its type (with boundary values), sometimes anything. */
function valueFor(schema: any): fc.Arbitrary<unknown> {
  const own: fc.Arbitrary<unknown>[] = [];
  const types = [schema?.type].flat().filter(Boolean);
  if (schema?.enum) own.push(fc.constantFrom(...schema.enum));
  if (types.includes('string')) {
    own.push(fc.string({ minLength: schema.minLength ?? 0, maxLength: Math.min(schema.maxLength ?? 40, 60) }));
    if (schema.maxLength) own.push(fc.constant('a'.repeat(schema.maxLength)), fc.constant('a'.repeat(schema.maxLength + 1)));
    if (schema.format === 'uri')
      own.push(
        fc.constantFrom('http://127.0.0.1:1/x.png', 'file:///etc/passwd', 'https://[::1]/a', 'http://169.254.169.254/', 'ftp://a/b'),
      );
  }
  if (types.includes('integer') || types.includes('number')) {
    own.push(boundaryNumber, fc.integer({ min: (schema.minimum ?? 0) - 2, max: (schema.maximum ?? 100) + 2 }));
  }
  if (types.includes('boolean')) own.push(fc.boolean());
  if (types.includes('object')) own.push(fc.dictionary(fc.string({ maxLength: 8 }), fc.jsonValue({ maxDepth: 1 }), { maxKeys: 3 }));
  if (own.length === 0) return weird;
  return fc.oneof({ weight: 3, arbitrary: fc.oneof(...own) }, { weight: 1, arbitrary: weird });
}

const asText = (v: unknown): string => (typeof v === 'string' ? v : (JSON.stringify(v) ?? 'undefined'));

interface Built {
  url: string;
  init: RequestInit;
}

/** One request for an operation: path, query (with duplicates), headers and body. */
function requestFor(op: Operation, base: string): fc.Arbitrary<Built> {
  const pathParams = op.params.filter((p) => p.in === 'path');
  const queryParams = op.params.filter((p) => p.in === 'query');
  const headerParams = op.params.filter((p) => p.in === 'header');
  const pathArb = fc.tuple(...pathParams.map(() => fc.oneof(idLike, fc.string({ minLength: 1 }), oddUnicode, huge)));
  const queryArb = fc.array(
    fc.tuple(
      queryParams.length
        ? fc.oneof(fc.constantFrom(...queryParams.map((p) => p.name)), fc.string({ maxLength: 6 }))
        : fc.string({ maxLength: 6 }),
      queryParams.length ? fc.oneof(...queryParams.map((p) => valueFor(p.schema))) : weird,
    ),
    { maxLength: 4 },
  );
  const headerArb = fc.array(
    fc.tuple(
      fc.constantFrom(...(headerParams.length ? headerParams.map((p) => p.name) : ['x-service-source']), 'idempotency-key', 'x-request-id'),
      fc.oneof(fc.string({ maxLength: 140 }), oddUnicode),
    ),
    { maxLength: 2 },
  );
  const props: Record<string, any> = { ...(op.json?.properties ?? {}), ...(op.multipart?.properties ?? {}) };
  const fieldNames = Object.keys(props);
  const fieldArb = fc
    .array(
      fc.tuple(
        fieldNames.length
          ? fc.oneof({ weight: 4, arbitrary: fc.constantFrom(...fieldNames) }, { weight: 1, arbitrary: fc.string({ maxLength: 10 }) })
          : fc.string({ maxLength: 10 }),
        fc.nat(),
      ),
      { maxLength: 6 },
    )
    .chain((pairs) => fc.tuple(...pairs.map(([name]) => fc.tuple(fc.constant(name), valueFor(props[name]))))) as fc.Arbitrary<
    [string, unknown][]
  >;
  const bodyKind = fc.constantFrom(
    ...(['none', 'json', 'json-duplicates', 'json-broken', 'json-array', 'multipart', 'multipart-duplicates', 'text'] as const),
  );
  const keyArb = fc.oneof(
    { weight: 8, arbitrary: fc.constant('good') },
    { weight: 1, arbitrary: fc.constantFrom('none', 'garbage', 'basic') },
  );

  return fc
    .record({ path: pathArb, query: queryArb, headers: headerArb, fields: fieldArb, kind: bodyKind, key: keyArb })
    .map(({ path, query, headers, fields, kind, key }) => {
      let p = op.path;
      pathParams.forEach((param, i) => (p = p.replace(`{${param.name}}`, encodeURIComponent(path[i]))));
      const qs = query.map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(asText(v))}`).join('&');
      const h = new Headers();
      for (const [k, v] of headers) {
        try {
          h.append(k, v);
        } catch {
          /* a value fetch itself refuses to send (CR/LF, non-Latin-1): not a server input */
        }
      }
      h.set('x-fuzz-key', key);
      const init: RequestInit = { method: op.method, headers: h };
      if (op.method !== 'GET' && op.method !== 'DELETE') {
        const obj = Object.fromEntries(fields);
        switch (kind) {
          case 'json':
            h.set('content-type', 'application/json');
            init.body = JSON.stringify(obj);
            break;
          case 'json-duplicates':
            h.set('content-type', 'application/json');
            init.body = `{${fields
              .map(([k, v]) => `${JSON.stringify(k)}:${JSON.stringify(v) ?? 'null'}`)
              .concat(fields.map(([k]) => `${JSON.stringify(k)}:"dup"`))
              .join(',')}}`;
            break;
          case 'json-broken':
            h.set('content-type', 'application/json');
            init.body = JSON.stringify(obj).slice(0, -1) + '\u0000';
            break;
          case 'json-array':
            h.set('content-type', 'application/json');
            init.body = JSON.stringify([obj]);
            break;
          case 'multipart':
          case 'multipart-duplicates': {
            const fd = new FormData();
            for (const [k, v] of fields) fd.append(k, asText(v));
            if (kind === 'multipart-duplicates') for (const [k, v] of fields) fd.append(k, new Blob([asText(v)]), 'dup.bin');
            init.body = fd;
            break;
          }
          case 'text':
            h.set('content-type', 'text/plain');
            init.body = asText(obj);
            break;
          case 'none':
            break;
        }
      }
      return { url: `${base}${p}${qs ? `?${qs}` : ''}`, init };
    });
}

async function filesUnder(dir: string): Promise<string[]> {
  const out: string[] = [];
  const walk = async (d: string) => {
    for (const e of await readdir(d, { withFileTypes: true }).catch(() => [])) {
      if (e.isDirectory()) await walk(join(d, e.name));
      else out.push(join(d, e.name));
    }
  };
  await walk(dir);
  return out;
}

describe(`every OpenAPI route under random input (seed ${SEED})`, () => {
  let svc: TestService;
  let ops: Operation[] = [];
  before(async () => {
    svc = await startService({ db: 'sqlite', credits: 1_000_000 });
    ops = operations(await (await svc.request('/v1/openapi.json', { key: null })).json());
  });
  after(() => svc?.close());

  const money = async () => {
    const db = svc.wired.deps.db;
    const balances = await db.selectFrom('balances').selectAll().orderBy('account_id').execute();
    const ledger = await db
      .selectFrom('ledger')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow();
    return { balances: balances.map((b) => [b.account_id, b.available_milli, b.reserved_milli]), ledger: Number(ledger.n) };
  };

  it('covers every operation of the document', () => {
    assert.ok(ops.length >= 15, `only ${ops.length} operations found`);
  });

  it('never answers 5xx, always the envelope, never charges a refusal, leaves nothing in tmp/', async (t) => {
    const codes = new Set(Object.keys(ERROR_CATALOGUE));
    const seen: Record<string, number> = {};
    for (const [i, op] of ops.entries()) {
      await t.test(`${op.method} ${op.path}`, async () => {
        await fc.assert(
          fc.asyncProperty(requestFor(op, svc.baseUrl), async ({ url, init }) => {
            const headers = new Headers(init.headers);
            const key = headers.get('x-fuzz-key');
            headers.delete('x-fuzz-key');
            if (key === 'good') headers.set('authorization', `Bearer ${svc.apiKey}`);
            else if (key === 'garbage') headers.set('authorization', 'Bearer mk_live_' + 'A'.repeat(32));
            else if (key === 'basic') headers.set('authorization', 'Basic dXNlcjpwYXNz');
            const before = await money();
            const ctl = new AbortController();
            const timer = setTimeout(() => ctl.abort(), 15_000);
            let res: Response;
            try {
              res = await fetch(url, { ...init, headers, signal: ctl.signal, redirect: 'manual' });
            } finally {
              clearTimeout(timer);
            }
            const type = res.headers.get('content-type') ?? '';
            // An event stream that opened (a real ID) is a success; stop reading it.
            if (type.startsWith('text/event-stream')) {
              ctl.abort();
              return;
            }
            const text = await res.text();
            seen[`${res.status}`] = (seen[`${res.status}`] ?? 0) + 1;
            assert.ok(res.status < 500, `${init.method} ${url.slice(0, 200)} -> ${res.status} ${text.slice(0, 300)}`);
            if (res.status >= 400) {
              assert.match(type, /^application\/json/, `${res.status} without JSON: ${text.slice(0, 200)}`);
              const body = JSON.parse(text);
              // Parser-level refusals (400, reason headers_too_large, for an oversized URL) come before routing: always the V1 envelope.
              if (op.path.startsWith('/api/') && body?.error === undefined) {
                // The Legacy interface's own envelope (docs/legacy.md): `detail` is a message or {error_code, message, v1_code}.
                const d = body?.detail;
                assert.ok(
                  typeof d === 'string' || (typeof d?.error_code === 'string' && typeof d?.message === 'string' && codes.has(d?.v1_code)),
                  `not a Legacy envelope: ${text.slice(0, 300)}`,
                );
              } else {
                assert.ok(codes.has(body?.error?.code), `not an envelope: ${text.slice(0, 300)}`);
                assert.equal(typeof body.error.message, 'string');
                assert.equal(body.error.request_id, res.headers.get('x-request-id'));
              }
              assert.deepEqual(
                await money(),
                before,
                `a refused ${init.method} ${op.path} (${res.status} ${body?.error?.code ?? body?.detail?.error_code ?? body?.detail}) moved credits`,
              );
            }
          }),
          { numRuns: RUNS, seed: SEED + i, interruptAfterTimeLimit: PER_OPERATION_MS, endOnFailure: true },
        );
      });
    }
    // Requests are all answered; a late cleanup would show up here.
    const tmp = join(svc.config.dataDir, 'tmp');
    let left = await filesUnder(tmp);
    for (let i = 0; i < 20 && left.length > 0; i++) {
      await new Promise((r) => setTimeout(r, 100));
      left = await filesUnder(tmp);
    }
    assert.deepEqual(left, [], 'files left in tmp/');
    t.diagnostic(`statuses: ${JSON.stringify(seen)}`);
  });
});
