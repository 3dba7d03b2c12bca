import path from "node:path";
import Database from "better-sqlite3";
import { beforeAll, describe, expect, it, vi } from "vitest";
import { prepareDatabase, tempDataDir } from "../support/database";

// SQLite's one connection, shared by transactions and every other statement (lib/db/driver/one-connection.ts).
process.env.DATABASE_URL = `file:${path.join(tempDataDir(), "connection.db")}`;

let client: typeof import("@/lib/db/driver/client");
/** better-sqlite3's own prepare, watched from before the app's connection opens. */
const prepares = vi.spyOn(Database.prototype, "prepare");
/** And its statements' `columns`, which the adapter asks for at every read. */
const columnReads = vi.spyOn(Object.getPrototypeOf(new Database(":memory:").prepare("SELECT 1")), "columns");

beforeAll(async () => {
  await prepareDatabase(process.env.DATABASE_URL!);
  client = await import("@/lib/db/driver/client");
});

/** Settles with the promise's outcome, or says it did not within `ms`. */
const within = <T>(ms: number, promise: Promise<T>) =>
  Promise.race([
    promise.then(
      (value) => ({ value }),
      (error: Error) => ({ error: error.message }),
    ),
    new Promise((resolve) => setTimeout(() => resolve("still waiting"), ms)),
  ]);

describe("SQLite's one connection", () => {
  it("goes on after a transaction whose COMMIT fails: other statements and the next transaction run", async () => {
    const { db, transaction } = client;
    await db.$executeRawUnsafe(`CREATE TABLE "Parent" ("id" INTEGER PRIMARY KEY)`);
    await db.$executeRawUnsafe(
      `CREATE TABLE "Child" ("parentId" INTEGER REFERENCES "Parent" ("id") DEFERRABLE INITIALLY DEFERRED)`,
    );
    // A deferred foreign key is checked at COMMIT, which fails.
    const failed = await within(
      5_000,
      transaction((tx) => tx.$executeRawUnsafe(`INSERT INTO "Child" VALUES (42)`)),
    );
    expect(failed).toMatchObject({ error: expect.stringMatching(/foreign ?key/i) });
    expect(await within(2_000, db.conversation.count())).toEqual({ value: 0 });
    expect(
      await within(
        2_000,
        transaction((tx) => tx.conversation.create({ data: { ownerId: "after" } })),
      ),
    ).toMatchObject({ value: { ownerId: "after" } });
    // What the failed transaction wrote is not there.
    expect(await within(2_000, db.$queryRawUnsafe(`SELECT COUNT(*) AS "n" FROM "Child"`))).toEqual({
      value: [{ n: 0n }],
    });
  });
});

describe("SQLite's statements", () => {
  const preparedTimes = (sql: RegExp) => prepares.mock.calls.filter(([source]) => sql.test(source)).length;
  const columnsRead = (sql: RegExp) =>
    columnReads.mock.contexts.filter((statement: { source: string }) => sql.test(statement.source)).length;

  it("are prepared once each, their columns read once, and every use binds its own arguments, in a transaction too", async () => {
    const { db, transaction } = client;
    const owners = ["statement-a", "statement-b", "statement-c"];
    for (const ownerId of owners) await db.conversation.create({ data: { ownerId, title: `of ${ownerId}` } });
    const titleOf = (ownerId: string, on: Pick<typeof db, "conversation"> = db) =>
      on.conversation.findFirst({ where: { ownerId }, select: { title: true } });
    for (const ownerId of owners) expect(await titleOf(ownerId)).toEqual({ title: `of ${ownerId}` });
    expect(await transaction((tx) => titleOf("statement-b", tx))).toEqual({ title: "of statement-b" });
    expect(await titleOf("nobody")).toBeNull();
    const titleQuery = /^SELECT .*`title` FROM `main`.`Conversation` WHERE `main`.`Conversation`.`ownerId` = \?/;
    expect(preparedTimes(titleQuery)).toBe(1);
    expect(preparedTimes(/^INSERT INTO `main`.`Conversation`/)).toBe(1);
    // Five reads of one statement: its columns asked of SQLite once.
    expect(columnsRead(titleQuery)).toBe(1);
  });
});
