import { randomBytes } from 'node:crypto';

/**
 * Public identifiers: family prefix + a 26-character ULID in Crockford base32 (48-bit millisecond
 * time, 80 random bits). ULIDs sort by creation time, so `ORDER BY id DESC` is "newest first" and a
 * cursor can be the last ID seen. Within one process IDs are strictly increasing even inside one
 * millisecond (the random part is incremented), which keeps list order stable.
 */

export const ID_PREFIX = {
  account: 'acct_',
  apiKey: 'key_',
  character: 'char_',
  motion: 'mot_',
  render: 'render_',
  h3Video: 'vid_',
  animation: 'anim_',
  draft: 'draft_',
  upload: 'upl_',
  event: 'evt_',
  job: 'job_',
  ledger: 'led_',
} as const;

export type IdFamily = keyof typeof ID_PREFIX;

const CROCKFORD = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';
const ULID_RE = /^[0-9A-HJKMNP-TV-Z]{26}$/;

let lastTime = -1;
let lastRandom: number[] = [];

function encodeTime(ms: number): string {
  let out = '';
  let t = ms;
  for (let i = 0; i < 10; i++) {
    out = CROCKFORD[t % 32] + out;
    t = Math.floor(t / 32);
  }
  return out;
}

/** 16 base32 digits of randomness, as digit values so they can be incremented. */
function freshRandom(): number[] {
  const bytes = randomBytes(16);
  return Array.from(bytes, (b) => b & 31);
}

function increment(digits: number[]): number[] {
  const next = digits.slice();
  for (let i = next.length - 1; i >= 0; i--) {
    if (next[i] < 31) {
      next[i]++;
      return next;
    }
    next[i] = 0;
  }
  return freshRandom(); // overflow after 2^80 IDs in one millisecond: cannot happen in practice
}

export function ulid(now = Date.now()): string {
  if (now <= lastTime) {
    lastRandom = increment(lastRandom);
    now = lastTime;
  } else {
    lastTime = now;
    lastRandom = freshRandom();
  }
  return encodeTime(now) + lastRandom.map((d) => CROCKFORD[d]).join('');
}

export function newId(family: IdFamily): string {
  return ID_PREFIX[family] + ulid();
}

/** True when `id` is a well-formed ID of the family (prefix + ULID). Anything else is "not found". */
export function isIdOf(family: IdFamily, id: unknown): id is string {
  if (typeof id !== 'string') return false;
  const prefix = ID_PREFIX[family];
  return id.startsWith(prefix) && ULID_RE.test(id.slice(prefix.length));
}

/** The family of a video-resource ID (`render_`, `vid_`, `anim_`), or null. */
export function videoFamily(id: string): 'render' | 'h3Video' | 'animation' | null {
  if (isIdOf('render', id)) return 'render';
  if (isIdOf('h3Video', id)) return 'h3Video';
  if (isIdOf('animation', id)) return 'animation';
  return null;
}
