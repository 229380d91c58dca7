import { newId } from '../../contracts/ids.js';
import { nowIso, type Db } from '../../infra/db/database.js';
import type { LedgerTable } from '../../infra/db/schema.js';
import { compiledOnce } from '../../infra/db/compiled.js';

/** SQL for balances and the append-only ledger. No rules here: see billing.service.ts. */

/** Takes the account's balance row lock (PostgreSQL row lock; SQLite already holds the write lock). */
export async function lockBalance(tx: Db, accountId: string): Promise<{ available_milli: number; reserved_milli: number } | undefined> {
  await tx.updateTable('balances').set({ updated_at: nowIso() }).where('account_id', '=', accountId).execute();
  return tx.selectFrom('balances').select(['available_milli', 'reserved_milli']).where('account_id', '=', accountId).executeTakeFirst();
}

export async function ledgerRowsFor(
  tx: Db,
  resourceId: string,
): Promise<Pick<LedgerTable, 'kind' | 'amount_milli' | 'reserved_delta_milli' | 'account_id'>[]> {
  return tx
    .selectFrom('ledger')
    .select(['kind', 'amount_milli', 'reserved_delta_milli', 'account_id'])
    .where('resource_id', '=', resourceId)
    .execute();
}

/** Appends a row and applies it to the balance; the CHECK constraints refuse a negative balance. */
export async function appendMovement(
  tx: Db,
  row: { accountId: string; resourceId: string; kind: LedgerTable['kind']; amountMilli: number; reservedDeltaMilli: number; note?: string },
): Promise<void> {
  const now = nowIso();
  await tx
    .insertInto('ledger')
    .values({
      id: newId('ledger'),
      account_id: row.accountId,
      resource_id: row.resourceId,
      kind: row.kind,
      amount_milli: row.amountMilli,
      reserved_delta_milli: row.reservedDeltaMilli,
      note: row.note ?? null,
      created_at: now,
    })
    .execute();
  await tx
    .updateTable('balances')
    .set((eb) => ({
      available_milli: eb('available_milli', '+', row.amountMilli),
      reserved_milli: eb('reserved_milli', '+', row.reservedDeltaMilli),
      updated_at: now,
    }))
    .where('account_id', '=', row.accountId)
    .execute();
}

export async function insertBalance(tx: Db, accountId: string): Promise<void> {
  await tx.insertInto('balances').values({ account_id: accountId, available_milli: 0, reserved_milli: 0, updated_at: nowIso() }).execute();
}

const balanceQuery = compiledOnce((db: Db, accountId: string) => db.selectFrom('balances').selectAll().where('account_id', '=', accountId));

/** GET /v1/credits reads this on every call: compiled once per database. */
export async function getBalance(db: Db, accountId: string) {
  return (await balanceQuery(db, accountId))[0];
}

export async function ledgerForAccount(db: Db, accountId: string) {
  return db.selectFrom('ledger').selectAll().where('account_id', '=', accountId).orderBy('id').execute();
}

/** One page of an account's ledger, newest first; `beforeId` continues after the previous page's last row. */
export async function ledgerPage(db: Db, accountId: string, beforeId: string | null, limit: number): Promise<LedgerTable[]> {
  let q = db.selectFrom('ledger').selectAll().where('account_id', '=', accountId);
  if (beforeId !== null) q = q.where('id', '<', beforeId);
  return q.orderBy('id', 'desc').limit(limit).execute();
}
