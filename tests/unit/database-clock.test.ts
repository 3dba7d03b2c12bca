import path from "node:path";
import { afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { tempDataDir } from "../support/app-server";

process.env.DATABASE_URL = `file:${path.join(tempDataDir(), "clock.db")}`;

let databaseClock: typeof import("@/lib/db/driver/clock").databaseClock;

beforeAll(async () => {
  ({ databaseClock } = await import("@/lib/db/driver/clock"));
});
afterEach(() => vi.restoreAllMocks());

/** How far the database's clock, as read, is from the system's now. */
const apart = () => Math.abs(databaseClock.now().getTime() - Date.now());

describe("the database's clock (SQLite: the system's)", () => {
  it("follows the system's clock when it is stepped, whatever the readings before", async () => {
    for (let i = 0; i < 8; i++) await databaseClock.read();
    expect(apart()).toBeLessThan(5);
    const systemNow = Date.now.bind(Date);
    vi.spyOn(Date, "now").mockImplementation(() => systemNow() + 30_000);
    await databaseClock.read();
    expect(apart()).toBeLessThan(5);
    vi.restoreAllMocks();
    await databaseClock.read();
    expect(apart()).toBeLessThan(5);
  });

  it("dates a time of the monotonic clock on the database's clock", async () => {
    await databaseClock.read();
    const inTenSeconds = databaseClock.at(performance.now() + 10_000).getTime() - Date.now();
    expect(Math.abs(inTenSeconds - 10_000)).toBeLessThan(5);
  });
});
