import { AppError, invalidRequest } from '../../contracts/errors.js';
import { isIdOf } from '../../contracts/ids.js';
import type { LedgerTable } from '../../infra/db/schema.js';
import type { Db } from '../../infra/db/database.js';
import * as repo from './billing.repository.js';
import { milliToCredits } from './prices.js';

/**
 * Credits, kept as integer thousandths ("milli-credits"). Every movement is one append-only ledger
 * row keyed by (resource_id, kind) and applied to the balance in the same transaction.
 *
 * Exactly-once: each operation first takes the account's balance row lock, then looks at the
 * resource's existing rows. Two racing settlements of one render therefore run one after the
 * other, and the second sees the first's row and does nothing. Callers pass the transaction that
 * also writes the resource, so billing and state commit together.
 */

function insufficient(neededMilli: number, availableMilli: number): AppError {
  return new AppError(
    'INSUFFICIENT_CREDITS',
    `This needs ${milliToCredits(neededMilli)} credits; the balance is ${milliToCredits(availableMilli)}.`,
    {
      details: { required: milliToCredits(neededMilli), balance: milliToCredits(availableMilli) },
    },
  );
}

async function lock(tx: Db, accountId: string) {
  const bal = await repo.lockBalance(tx, accountId);
  if (!bal) throw new Error(`account ${accountId} has no balance row`);
  return bal;
}

/** Adds credits (admin grants, the demo account). `grantId` makes a retried grant a no-op. */
export async function grant(tx: Db, accountId: string, grantId: string, amountMilli: number, note?: string): Promise<void> {
  if (!Number.isInteger(amountMilli) || amountMilli <= 0) throw new Error('grant amount must be a positive integer');
  await lock(tx, accountId);
  const rows = await repo.ledgerRowsFor(tx, grantId);
  if (rows.some((r) => r.kind === 'grant')) return;
  await repo.appendMovement(tx, { accountId, resourceId: grantId, kind: 'grant', amountMilli, reservedDeltaMilli: 0, note });
}

/** Sets aside an estimate for a resource (renders). Refuses with INSUFFICIENT_CREDITS when short. */
export async function reserve(tx: Db, accountId: string, resourceId: string, amountMilli: number): Promise<void> {
  const bal = await lock(tx, accountId);
  if ((await repo.ledgerRowsFor(tx, resourceId)).some((r) => r.kind === 'reserve')) return;
  if (bal.available_milli < amountMilli) throw insufficient(amountMilli, bal.available_milli);
  await repo.appendMovement(tx, { accountId, resourceId, kind: 'reserve', amountMilli: -amountMilli, reservedDeltaMilli: amountMilli });
}

/** Takes a flat price (Characters). Refuses with INSUFFICIENT_CREDITS when short. */
export async function charge(tx: Db, accountId: string, resourceId: string, amountMilli: number): Promise<void> {
  const bal = await lock(tx, accountId);
  if ((await repo.ledgerRowsFor(tx, resourceId)).some((r) => r.kind === 'charge')) return;
  if (amountMilli === 0) return;
  if (bal.available_milli < amountMilli) throw insufficient(amountMilli, bal.available_milli);
  await repo.appendMovement(tx, { accountId, resourceId, kind: 'charge', amountMilli: -amountMilli, reservedDeltaMilli: 0 });
}

/**
 * Gives a charge back (a Character whose processing failed), whole or, with `partMilli`, only that
 * part of it (the 3D part of a Character whose 2D part was delivered). Once per resource.
 */
export async function refund(tx: Db, accountId: string, resourceId: string, partMilli?: number): Promise<void> {
  await lock(tx, accountId);
  const rows = await repo.ledgerRowsFor(tx, resourceId);
  const charged = rows.find((r) => r.kind === 'charge');
  if (!charged || rows.some((r) => r.kind === 'refund')) return;
  const amount = partMilli === undefined ? -charged.amount_milli : Math.min(partMilli, -charged.amount_milli);
  if (amount <= 0) return;
  await repo.appendMovement(tx, { accountId, resourceId, kind: 'refund', amountMilli: amount, reservedDeltaMilli: 0 });
}

/**
 * Closes a reservation against the actual cost. The unused part returns to the balance; when the
 * actual cost exceeds the estimate (a rounding frame), the extra is taken only as far as the
 * balance allows, because the balance never goes below zero. Returns the milli-credits charged.
 */
export async function settle(tx: Db, accountId: string, resourceId: string, actualMilli: number): Promise<number> {
  const bal = await lock(tx, accountId);
  const rows = await repo.ledgerRowsFor(tx, resourceId);
  const reserved = rows.find((r) => r.kind === 'reserve');
  if (!reserved || rows.some((r) => r.kind === 'settle' || r.kind === 'release')) return 0;
  const held = reserved.reserved_delta_milli;
  const extra = Math.max(0, actualMilli - held);
  const charged = Math.min(actualMilli, held + Math.min(extra, bal.available_milli));
  await repo.appendMovement(tx, {
    accountId,
    resourceId,
    kind: 'settle',
    amountMilli: held - charged,
    reservedDeltaMilli: -held,
    note: `actual ${actualMilli}`,
  });
  return charged;
}

/** Returns a whole reservation (failed or cancelled renders). Once. */
export async function release(tx: Db, accountId: string, resourceId: string): Promise<void> {
  await lock(tx, accountId);
  const rows = await repo.ledgerRowsFor(tx, resourceId);
  const reserved = rows.find((r) => r.kind === 'reserve');
  if (!reserved || rows.some((r) => r.kind === 'settle' || r.kind === 'release')) return;
  const held = reserved.reserved_delta_milli;
  await repo.appendMovement(tx, { accountId, resourceId, kind: 'release', amountMilli: held, reservedDeltaMilli: -held });
}

export interface CreditsView {
  balance: number;
  reserved: number;
  updated_at: string;
}

export async function balanceOf(db: Db, accountId: string): Promise<CreditsView> {
  const b = await repo.getBalance(db, accountId);
  if (!b) throw new Error(`account ${accountId} has no balance row`);
  return { balance: milliToCredits(b.available_milli), reserved: milliToCredits(b.reserved_milli), updated_at: b.updated_at };
}

export interface LedgerEntryView {
  id: string;
  kind: LedgerTable['kind'];
  /** The resource the movement belongs to (a render, video, character, motion or grant ID). */
  resource_id: string;
  /** Signed change of the spendable balance, in credits. */
  amount: number;
  /** Signed change of the reserved credits. */
  reserved_delta: number;
  note: string | null;
  created_at: string;
}

export interface LedgerPageView {
  items: LedgerEntryView[];
  next_cursor: string | null;
}

/**
 * The account's ledger, newest first, cursor-paginated like GET /v1/videos (an addition to the
 * interface, for the console and for reconciling a bill: docs/api-decisions.md).
 */
export async function ledgerOf(db: Db, accountId: string, q: { cursor?: string; limit?: number }): Promise<LedgerPageView> {
  const limit = q.limit ?? 50;
  let before: string | null = null;
  if (q.cursor !== undefined) {
    const decoded = /^[A-Za-z0-9_-]{1,200}$/.test(q.cursor) ? Buffer.from(q.cursor, 'base64url').toString('utf8') : '';
    if (!isIdOf('ledger', decoded))
      throw invalidRequest('The cursor is not valid; pass next_cursor from a previous page unchanged.', { field: 'cursor' });
    before = decoded;
  }
  const rows = await repo.ledgerPage(db, accountId, before, limit + 1);
  const page = rows.slice(0, limit);
  const last = page[page.length - 1];
  return {
    items: page.map((r) => ({
      id: r.id,
      kind: r.kind,
      resource_id: r.resource_id,
      amount: milliToCredits(Number(r.amount_milli)),
      reserved_delta: milliToCredits(Number(r.reserved_delta_milli)),
      note: r.note,
      created_at: r.created_at,
    })),
    next_cursor: rows.length > limit && last ? Buffer.from(last.id, 'utf8').toString('base64url') : null,
  };
}
