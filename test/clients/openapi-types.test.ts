import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { documentText, typesText } from '../../packages/sdk/scripts/openapi-types.js';
import { servedDocument } from '../../packages/sdk/scripts/served-document.js';
import { API_VERSION } from '../../packages/sdk/src/version.js';

/**
 * The SDK's committed OpenAPI copy and generated types are exactly what the service serves today.
 * When this fails, run `npm run generate:sdk` and commit the result.
 */
const SDK = join(import.meta.dirname, '../../packages/sdk');

test('packages/sdk/openapi.json and src/generated/openapi.ts match the served /v1/openapi.json', async () => {
  const doc = (await servedDocument()) as { info: { version: string } };
  assert.equal(doc.info.version, API_VERSION, 'the SDK states the interface version it was generated from');
  const pkg = JSON.parse(await readFile(join(SDK, 'package.json'), 'utf8'));
  assert.equal(pkg.version.split('.')[0], API_VERSION.split('.')[0], 'the package major version follows the interface');
  assert.equal(await readFile(join(SDK, 'openapi.json'), 'utf8'), documentText(doc), 'openapi.json is stale: npm run generate:sdk');
  assert.equal(
    await readFile(join(SDK, 'src/generated/openapi.ts'), 'utf8'),
    await typesText(doc),
    'generated types are stale: npm run generate:sdk',
  );
});
