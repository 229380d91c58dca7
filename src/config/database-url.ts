/**
 * The file of a `sqlite:` database URL (`sqlite:/abs/path`, `sqlite:///abs/path`, `sqlite:rel/path`),
 * or null for another database or an in-memory SQLite one.
 */
export function sqliteFileOf(url: string): string | null {
  if (!url.startsWith('sqlite:')) return null;
  const file = url.slice('sqlite:'.length).replace(/^\/\/(?=\/)/, '');
  return file === ':memory:' || file === '' ? null : file;
}

/** Where the processes of a SQLite deployment pass signals to each other (src/infra/pubsub/file-signal-bus.ts). */
export function signalFileOf(url: string): string | null {
  const file = sqliteFileOf(url);
  return file === null ? null : `${file}-signals`;
}
