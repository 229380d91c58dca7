import { createRequire } from 'node:module';
import type { FastifySchema, FastifySchemaCompiler } from 'fastify';

/**
 * Request validation with type coercion only where the wire has no types. A querystring, path
 * parameter or header is always text, so `?limit=5` must become the integer 5; a JSON body carries
 * real types, and coercing it would silently turn `{"template_id": 7}` into the string "7" (a 404
 * for a template that was never named) instead of the 400 the caller deserves.
 *
 * Fastify's own Ajv compiler (resolved through Fastify, whose dependency it is) builds both flavours;
 * each route part picks one by `httpPart`.
 */
type RouteSchema = { schema: FastifySchema; method: string; url: string; httpPart?: string };
type BuildValidator = (
  externalSchemas: unknown,
  ajvOptions: { customOptions?: Record<string, unknown>; plugins?: unknown[] },
) => FastifySchemaCompiler<unknown>;

const fastifyRequire = createRequire(createRequire(import.meta.url).resolve('fastify'));
const AjvCompiler = fastifyRequire('@fastify/ajv-compiler') as () => BuildValidator;

/** Header names are case-insensitive and arrive lower-cased, so their schema's names must be too. */
function lowerCaseHeaders(schema: any): unknown {
  if (!schema || typeof schema !== 'object' || !schema.properties) return schema;
  return {
    ...schema,
    properties: Object.fromEntries(Object.entries(schema.properties).map(([k, v]) => [k.toLowerCase(), v])),
    ...(Array.isArray(schema.required) ? { required: schema.required.map((k: string) => k.toLowerCase()) } : {}),
  };
}

type Validate = ((data: unknown) => boolean) & { errors?: unknown };

/**
 * Coerced text that reads as a number beyond the float range (`?limit=1e400`, four hundred nines)
 * becomes Infinity, which Ajv lets through an integer's bounds: the route would then hand Infinity to
 * SQL (a 500). A part's top-level values must be finite numbers wherever they are numbers.
 */
function finiteOnly(validate: Validate): Validate {
  const checked: Validate = (data) => {
    if (!validate(data)) {
      checked.errors = validate.errors;
      return false;
    }
    for (const [key, value] of Object.entries((data ?? {}) as Record<string, unknown>)) {
      if (typeof value === 'number' && !Number.isFinite(value)) {
        checked.errors = [{ instancePath: `/${key}`, keyword: 'type', message: 'must be a finite number', params: {}, schemaPath: '' }];
        return false;
      }
    }
    return true;
  };
  return checked;
}

export function partAwareValidatorFactory(): BuildValidator {
  const pool = AjvCompiler();
  return (externalSchemas, ajvOptions) => {
    const base = ajvOptions?.customOptions ?? {};
    const coercing = pool(externalSchemas, { ...ajvOptions, customOptions: { ...base, coerceTypes: 'array' } });
    const strict = pool(externalSchemas, { ...ajvOptions, customOptions: { ...base, coerceTypes: false } });
    return ((route: RouteSchema) => {
      if (route.httpPart === 'body') return strict(route as never);
      if (route.httpPart === 'headers')
        return finiteOnly(coercing({ ...route, schema: lowerCaseHeaders(route.schema) } as never) as Validate);
      return finiteOnly(coercing(route as never) as Validate);
    }) as FastifySchemaCompiler<unknown>;
  };
}
