/**
 * Regenerates packages/sdk/openapi.json and src/generated/openapi.ts from the document the service
 * serves. Run from the repository root: `npm run generate -w @marionette/sdk`.
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { documentText, typesText } from './openapi-types.js';
import { servedDocument } from './served-document.js';

const root = join(import.meta.dirname, '..');
const doc = await servedDocument();
await writeFile(join(root, 'openapi.json'), documentText(doc));
await writeFile(join(root, 'src/generated/openapi.ts'), await typesText(doc));
process.stdout.write('wrote packages/sdk/openapi.json and packages/sdk/src/generated/openapi.ts\n');
