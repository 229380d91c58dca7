/**
 * Limits of request fields that belong to the interface, declared once: the wire schemas
 * (src/contracts/schemas, which document and validate them) and the domain's input parsing both
 * read them. Size and duration limits of media are configuration (src/config), not listed here.
 */

/** `name` of a Character, Motion or Legacy asset. */
export const NAME_MAX = 256;
/** `task_id` (idempotency for creates, spec 2.2). */
export const TASK_ID_MAX = 128;

/** GET /v1/motions: cursor pages. */
export const MOTIONS_PAGE_DEFAULT = 20;
export const MOTIONS_PAGE_MAX = 100;

/** Offset pages (Legacy GET /api/characters and /api/scenes). */
export const OFFSET_PAGE = { min: 1, max: 100, default: 50 } as const;
/** The largest offset accepted: a huge one (1e308 is an integer to JSON Schema) would reach the database as an invalid OFFSET. */
export const OFFSET_MAX = 2_147_483_647;

/** POST /v1/videos. */
export const PROMPT_MAX = 2000;
export const DURATION = { min: 3, max: 15, default: 5 } as const;
export const SEED_MAX = 2147483647;
export const TAGS = { max: 8, maxLength: 64 } as const;
