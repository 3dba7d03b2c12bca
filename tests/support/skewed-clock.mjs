// Preloaded into a test's server (NODE_OPTIONS=--import) to put its clock TOOLSMITH_TEST_CLOCK_SKEW_MS off, as on a
// machine whose clock is not in sync with the others': `Date` reads the skewed time; timers are untouched. With
// TOOLSMITH_TEST_CLOCK_STEP_AFTER_MS, the clock is right until then, and steps by the skew then (as NTP steps a clock).
const skewMs = Number(process.env.TOOLSMITH_TEST_CLOCK_SKEW_MS ?? 0);
const stepAfterMs = Number(process.env.TOOLSMITH_TEST_CLOCK_STEP_AFTER_MS ?? 0);
const SystemDate = Date;
// Skewed from the start, the machine's clock was off when the process started: so is the monotonic clock's origin.
if (stepAfterMs === 0) Object.defineProperty(performance, "timeOrigin", { value: performance.timeOrigin + skewMs });
const now = () => SystemDate.now() + (performance.now() >= stepAfterMs ? skewMs : 0);

// A proxy, not a subclass: `Date()` still answers a string, and dates made inside Node are still `instanceof Date`.
globalThis.Date = new Proxy(SystemDate, {
  construct: (target, args, newTarget) => Reflect.construct(target, args.length === 0 ? [now()] : args, newTarget),
  apply: () => new SystemDate(now()).toString(),
  get: (target, key, receiver) => (key === "now" ? now : Reflect.get(target, key, receiver)),
});
