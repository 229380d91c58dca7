/**
 * Turns the served OpenAPI document into the SDK's generated files. Shared by `npm run generate`
 * (which writes them) and the drift test (which compares them with what is committed).
 */
import openapiTS, { astToString } from 'openapi-typescript';

export const GENERATED_HEADER =
  "/**\n * Generated from the service's GET /v1/openapi.json by packages/sdk/scripts/generate.ts.\n * Do not edit by hand: run `npm run generate -w @marionette/sdk` after changing the API.\n */\n\n";

/** The document as committed: stable key order as served, two-space indent, trailing newline. */
export function documentText(doc: unknown): string {
  return JSON.stringify(doc, null, 2) + '\n';
}

export async function typesText(doc: unknown): Promise<string> {
  // openapi-typescript mutates its input while resolving; hand it a copy.
  const ast = await openapiTS(structuredClone(doc) as never, { alphabetize: false, exportType: false });
  return GENERATED_HEADER + astToString(ast);
}
