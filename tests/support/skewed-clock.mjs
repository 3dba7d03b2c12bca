// Preloaded into a test's server (NODE_OPTIONS=--import) to put its clock TOOLSMITH_TEST_CLOCK_SKEW_MS off, as on a
// machine whose clock is not in sync with the others': `Date` reads the skewed time; timers are untouched.
const skewMs = Number(process.env.TOOLSMITH_TEST_CLOCK_SKEW_MS ?? 0);
const SystemDate = Date;

class SkewedDate extends SystemDate {
  constructor(...args) {
    super(...(args.length === 0 ? [SystemDate.now() + skewMs] : args));
  }

  static now() {
    return SystemDate.now() + skewMs;
  }
}

globalThis.Date = SkewedDate;
