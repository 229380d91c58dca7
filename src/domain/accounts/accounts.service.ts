import * as nodeCrypto from 'node:crypto';
import { createHash, randomBytes } from 'node:crypto';
import { AppError } from '../../contracts/errors.js';
import { isIdOf, newId } from '../../contracts/ids.js';
import { nowIso, type Db } from '../../infra/db/database.js';
import { insertBalance } from '../billing/billing.repository.js';
import { grant } from '../billing/billing.service.js';
import { creditsToMilli } from '../billing/prices.js';
import * as repo from './accounts.repository.js';
import { invalidateApiKey, type ApiKeyCache } from './key-cache.js';
import { announceKeyRevoked } from './key-revocations.js';
import type { PubSub } from '../ports/pubsub.js';
import { findOwned as findOwnedCharacter } from '../characters/characters.repository.js';
import { findOwned as findOwnedMotion } from '../motions/motions.repository.js';

/**
 * Accounts and their API keys. A key is `mk_live_` + 32 base64url characters (192 random bits);
 * only its sha256 is stored, so a database leak does not leak usable keys, and the key is shown
 * exactly once, at creation. A plain hash (no salt/stretching) is right for random secrets of this
 * size: there is nothing to brute-force.
 */
const KEY_PREFIX = 'mk_live_';
const KEY_RE = /^mk_live_[A-Za-z0-9_-]{32}$/;

export interface Principal {
  accountId: string;
  keyId: string;
}

// One-shot hashing (Node >= 20.12) skips the Hash object a request would otherwise build; the
// streaming API gives the same digest on older 20.x.
const oneShot = (nodeCrypto as { hash?: (algorithm: string, data: string, encoding: 'hex') => string }).hash;

export function hashKey(key: string): string {
  return oneShot ? oneShot('sha256', key, 'hex') : createHash('sha256').update(key).digest('hex');
}

export async function createAccount(
  db: Db,
  input: { name: string; credits: number; /** A fixed ID (the demo account); a new one otherwise. */ id?: string },
): Promise<{ accountId: string; apiKey: string; keyId: string }> {
  if (!Number.isFinite(input.credits) || input.credits < 0) throw new Error('credits must be a non-negative number');
  const accountId = input.id ?? newId('account');
  const result = await db.transaction().execute(async (tx) => {
    await repo.insertAccount(tx, {
      id: accountId,
      name: input.name,
      default_character_id: null,
      default_motion_id: null,
      created_at: nowIso(),
    });
    await insertBalance(tx, accountId);
    const milli = creditsToMilli(input.credits);
    if (milli > 0) await grant(tx, accountId, `grant_initial_${accountId}`, milli, 'initial credits');
    return issueKey(tx, accountId);
  });
  return { accountId, ...result };
}

async function issueKey(tx: Db, accountId: string): Promise<{ apiKey: string; keyId: string }> {
  const apiKey = KEY_PREFIX + randomBytes(24).toString('base64url');
  const keyId = newId('apiKey');
  await repo.insertKey(tx, {
    id: keyId,
    account_id: accountId,
    secret_hash: hashKey(apiKey),
    display_prefix: apiKey.slice(0, KEY_PREFIX.length + 4),
    created_at: nowIso(),
    revoked_at: null,
    last_used_at: null,
  });
  return { apiKey, keyId };
}

export async function createKey(db: Db, accountId: string): Promise<{ apiKey: string; keyId: string }> {
  const account = await repo.findAccount(db, accountId);
  if (!account) throw new Error(`no account ${accountId}`);
  return issueKey(db, accountId);
}

/**
 * Revokes a key: written in the database (the record), dropped from this process's caches, and,
 * given the shared bus, announced to every other process so their caches drop it at once
 * (key-revocations.ts). `announced: false` means the bus could not be reached: processes that
 * follow it are then disconnected too and confirm cached keys on each use, so the key is refused
 * anyway.
 */
export async function revokeKey(db: Db, keyId: string, bus?: PubSub): Promise<{ revoked: boolean; announced?: boolean }> {
  const key = await repo.findKey(db, keyId);
  if (!key) throw new Error(`no key ${keyId}`);
  const n = await repo.revokeKey(db, keyId, nowIso());
  invalidateApiKey(keyId);
  const revoked = n > 0 || key.revoked_at !== null;
  if (!bus) return { revoked };
  const announced = await announceKeyRevoked(bus, keyId).then(
    () => true,
    () => false,
  );
  return { revoked, announced };
}

export async function grantCredits(db: Db, accountId: string, credits: number): Promise<void> {
  const milli = creditsToMilli(credits);
  if (milli <= 0) throw new Error('amount must be positive');
  if (!(await repo.findAccount(db, accountId))) throw new Error(`no account ${accountId}`);
  await db.transaction().execute((tx) => grant(tx, accountId, newId('ledger').replace('led_', 'grant_'), milli, 'admin grant'));
}

/**
 * The project's default Character and Motion (used by a render that names neither). `undefined`
 * keeps the current value, `null` clears it. A named asset must be the account's own, not deleted,
 * and not terminally failed or cancelled: a default that can never render is refused now rather
 * than on every later default render. One still processing is accepted (it will become usable).
 */
export async function setProjectDefaults(
  db: Db,
  accountId: string,
  change: { characterId?: string | null; motionId?: string | null },
): Promise<{ default_character_id: string | null; default_motion_id: string | null }> {
  const account = await repo.findAccount(db, accountId);
  if (!account) throw new Error(`no account ${accountId}`);
  const characterId = change.characterId === undefined ? account.default_character_id : change.characterId;
  const motionId = change.motionId === undefined ? account.default_motion_id : change.motionId;
  if (change.characterId) {
    const row = isIdOf('character', change.characterId) ? await findOwnedCharacter(db, accountId, change.characterId) : undefined;
    usableDefault('Character', change.characterId, accountId, row?.status);
  }
  if (change.motionId) {
    const row = isIdOf('motion', change.motionId) ? await findOwnedMotion(db, accountId, change.motionId) : undefined;
    usableDefault('Motion', change.motionId, accountId, row?.status);
  }
  await repo.setDefaults(db, accountId, characterId, motionId);
  return { default_character_id: characterId, default_motion_id: motionId };
}

function usableDefault(kind: string, id: string, accountId: string, status: string | undefined): void {
  if (status === undefined) throw new Error(`no ${kind} ${id} belongs to account ${accountId}`);
  if (status === 'failed' || status === 'cancelled') throw new Error(`${kind} ${id} is ${status} and cannot be a default`);
}

/**
 * Resolves a bearer token to a principal. Malformed, unknown and revoked keys are all
 * INVALID_CREDENTIAL (a client cannot tell which, by design). A key in the cache that needs no
 * confirmation is answered synchronously (no promise on the hot read path); otherwise one
 * primary-key read confirms it, or a lookup by hash finds it.
 */
export function authenticate(db: Db, token: string, cache?: ApiKeyCache): Principal | Promise<Principal> {
  if (!KEY_RE.test(token)) throw invalidKey();
  const hash = hashKey(token);
  const cached = cache?.get(hash);
  if (cached) {
    if (!cache!.mustConfirm()) return { accountId: cached.accountId, keyId: cached.keyId };
    return confirmCached(db, cached, cache!);
  }
  return lookUp(db, hash, cache);
}

/** Another process may have revoked a cached key: one primary-key read of revoked_at, compiled once. */
async function confirmCached(db: Db, cached: { accountId: string; keyId: string }, cache: ApiKeyCache): Promise<Principal> {
  const state = await repo.keyRevocationState(db, cached.keyId);
  if (state !== undefined && state.revoked_at === null) return { accountId: cached.accountId, keyId: cached.keyId };
  cache.invalidate(cached.keyId);
  throw invalidKey();
}

async function lookUp(db: Db, hash: string, cache: ApiKeyCache | undefined): Promise<Principal> {
  const key = await repo.findKeyByHash(db, hash);
  if (!key || key.revoked_at !== null) throw invalidKey();
  const principal = { accountId: key.account_id, keyId: key.id };
  cache?.set(hash, principal);
  return principal;
}

function invalidKey(): AppError {
  return new AppError('INVALID_CREDENTIAL', 'The API key is malformed, revoked or unknown.', {
    headers: { 'WWW-Authenticate': 'Bearer realm="marionette", error="invalid_token"' },
  });
}

export { findAccount, countAccounts } from './accounts.repository.js';
