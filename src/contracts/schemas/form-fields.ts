import { NAME_MAX, TASK_ID_MAX } from '../limits.js';

/**
 * Building blocks of the multipart forms' JSON Schemas. Multipart bodies are read by
 * src/http/multipart.ts and judged by the domain's form parsers (which take callers other than
 * HTTP too); these schemas describe them in the OpenAPI document (`config.openapi.multipart`).
 */
export const boolField = (description: string) => ({ type: 'string', enum: ['true', 'false', '1', '0'], description });

export const nameField = { type: 'string', maxLength: NAME_MAX, default: '' };

export const taskIdField = {
  type: 'string',
  minLength: 1,
  maxLength: TASK_ID_MAX,
  description: 'Reusing a task_id of the account answers 409 IDEMPOTENCY_KEY_REUSED.',
};
