import { AppError } from '../../contracts/errors.js';

/** Errors Characters and Motions share, worded per family. */
type Family =
  | { kind: 'Character'; code: 'CHARACTER_NOT_FOUND'; field: 'character_id' }
  | { kind: 'Motion'; code: 'MOTION_NOT_FOUND'; field: 'motion_id' };

export const CHARACTER_FAMILY: Family = { kind: 'Character', code: 'CHARACTER_NOT_FOUND', field: 'character_id' };
export const MOTION_FAMILY: Family = { kind: 'Motion', code: 'MOTION_NOT_FOUND', field: 'motion_id' };

/** A malformed, foreign-family or other account's ID: the family's 404 (the echoed ID is capped). */
export function assetNotFound(family: Family, id: string): AppError {
  const shown = id.slice(0, 80);
  return new AppError(family.code, `No ${family.kind} ${shown} exists for this account.`, { details: { [family.field]: shown } });
}

/** A `task_id` already used by another asset of the family (DECISIONS: reuse for separate work conflicts). */
export function taskIdConflict(family: Family, taskId: string): AppError {
  return new AppError(
    'IDEMPOTENCY_KEY_REUSED',
    `The task_id "${taskId}" was already used for another ${family.kind} of this account; use a new task_id for new work.`,
    {
      details: { field: 'task_id', task_id: taskId },
    },
  );
}
