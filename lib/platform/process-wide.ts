/**
 * One of something per process, made by whichever copy of the module asks first: each route and the instrumentation
 * hook get their own copies of the modules (and dev reloads new ones). Also for an error class a shared object throws.
 */
export function processWide<T>(name: string, make: () => T): T {
  const shared = globalThis as unknown as Record<symbol, T | undefined>;
  const key = Symbol.for(`toolsmith.${name}`);
  return (shared[key] ??= make());
}
