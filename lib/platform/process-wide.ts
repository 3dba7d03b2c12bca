/**
 * One of something per process. The production build gives each route, and the instrumentation hook, its own copy
 * of the modules it uses (and dev-mode reloads make new ones), so a module-level object would exist once per copy.
 * What the process must share (the database client, the claims, the event writer, a thread pool) is made once, by
 * whichever copy asks first. So is an error class that such a shared object throws: `instanceof` in one copy does
 * not recognize another copy's class.
 */
export function processWide<T>(name: string, make: () => T): T {
  const shared = globalThis as unknown as Record<symbol, T | undefined>;
  const key = Symbol.for(`toolsmith.${name}`);
  return (shared[key] ??= make());
}
