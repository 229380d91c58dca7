/** A function whose first parameter is its dependencies, with that parameter bound. */
export type Bound<F> = F extends (deps: never, ...args: infer A) => infer R ? (...args: A) => R : never;

/**
 * Binds `deps` as the first argument of each function: how a service (a set of functions taking
 * their narrow `deps` first) becomes the object routes receive. The functions stay plain and
 * testable with their own stand-ins.
 */
export function bindDeps<D, T extends Record<string, (deps: D, ...args: never[]) => unknown>>(
  deps: D,
  fns: T,
): { [K in keyof T]: Bound<T[K]> } {
  const out: Record<string, unknown> = {};
  for (const [name, fn] of Object.entries(fns)) out[name] = (...args: never[]) => fn(deps, ...args);
  return out as { [K in keyof T]: Bound<T[K]> };
}
