import type { Db } from '../../infra/db/database.js';
import type { CharactersTable, MotionsTable, VideosTable } from '../../infra/db/schema.js';

/**
 * Reads of the resources a job works on, by ID alone: the job was authorised when it was created.
 * Deleted assets are still returned (a render that already chose an asset keeps working). SQL only.
 */
export async function characterById(db: Db, id: string): Promise<CharactersTable | undefined> {
  return db.selectFrom('characters').selectAll().where('id', '=', id).executeTakeFirst();
}

export async function motionById(db: Db, id: string): Promise<MotionsTable | undefined> {
  return db.selectFrom('motions').selectAll().where('id', '=', id).executeTakeFirst();
}

/** The job's video row, whatever its kind (render, h3 or animation): jobs name it by ID. */
export async function renderById(db: Db, id: string): Promise<VideosTable | undefined> {
  return db.selectFrom('videos').selectAll().where('id', '=', id).executeTakeFirst();
}
