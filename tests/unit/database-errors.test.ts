import pg from "pg";
import { describe, expect, it } from "vitest";
import { isUnavailable } from "@/lib/db/driver/sql";

/** An error as pg gives it for a statement the server answered with `code` (SQLSTATE). */
const fromServer = (code: string) => Object.assign(new pg.DatabaseError("refused", 0, "error"), { code });
/** As a Prisma driver adapter wraps it. */
const fromAdapter = (originalCode: string) =>
  Object.assign(new Error("refused"), { name: "DriverAdapterError", cause: { kind: "postgres", originalCode } });
const fromSqlite = (code: string) => Object.assign(new Error("sqlite"), { code });

describe("a failed statement, worth sending again or not", () => {
  it("is when the database was not reached or cannot take work now", () => {
    expect(
      isUnavailable(Object.assign(new Error("connect ECONNREFUSED 127.0.0.1:5432"), { code: "ECONNREFUSED" })),
    ).toBe(true);
    // Five capitals, as a SQLSTATE has, but the system's: a write to a connection the restarting server closed.
    expect(isUnavailable(Object.assign(new Error("write EPIPE"), { code: "EPIPE", syscall: "write" }))).toBe(true);
    expect(isUnavailable(new Error("Connection terminated unexpectedly"))).toBe(true);
    expect(isUnavailable(new Error("Query read timeout"))).toBe(true);
    // the database system is starting up / shutting down; too many connections; connection failure
    for (const code of ["57P03", "57P01", "53300", "08006"]) {
      expect(isUnavailable(fromServer(code))).toBe(true);
      expect(isUnavailable(fromAdapter(code))).toBe(true);
    }
    expect(isUnavailable(fromSqlite("SQLITE_BUSY"))).toBe(true);
    expect(isUnavailable(fromSqlite("SQLITE_BUSY_SNAPSHOT"))).toBe(true);
  });

  it("is not when the database refused the statement itself", () => {
    // unique violation; raised by a trigger; integer out of range
    for (const code of ["23505", "P0001", "22003"]) {
      expect(isUnavailable(fromServer(code))).toBe(false);
      expect(isUnavailable(fromAdapter(code))).toBe(false);
    }
    expect(isUnavailable(fromSqlite("SQLITE_CONSTRAINT_TRIGGER"))).toBe(false);
    expect(isUnavailable(fromSqlite("SQLITE_FULL"))).toBe(false);
  });
});
