import { sql } from "@/lib/db/driver/client";

/** One sweep of buckets that are full again per this many takes: they are as good as absent. */
const SWEEP_EVERY = 200;

/** The bucket's tokens now: what it had, refilled since, at most its capacity. */
const REFILLED = `LEAST(@capacity, bucket."tokens" + (EXTRACT(EPOCH FROM now()) - bucket."updatedAt") * @rate)`;
const NOW = "EXTRACT(EPOCH FROM now())";

/**
 * Take one token of `key`'s bucket, for every instance at once: one atomic upsert on the database's clock. A bucket
 * holds `capacity` tokens and refills evenly over `windowSeconds`; a take that finds less than one changes nothing
 * and says how long until there is one.
 */
export async function takeSharedToken(
  key: string,
  capacity: number,
  windowSeconds: number,
): Promise<{ ok: true } | { ok: false; retryAfterSeconds: number }> {
  const values = { key, capacity, rate: capacity / windowSeconds };
  if (Math.random() < 1 / SWEEP_EVERY) void sweepFullBuckets();
  // fullAt: when the bucket, left alone, holds its capacity again.
  const taken = await sql.rows(
    ...named(
      `INSERT INTO "ToolRateBucket" AS bucket ("key", "tokens", "updatedAt", "fullAt")
       VALUES (@key, @capacity - 1, ${NOW}, ${NOW} + 1 / @rate)
       ON CONFLICT ("key") DO UPDATE SET
         "tokens" = ${REFILLED} - 1,
         "updatedAt" = ${NOW},
         "fullAt" = ${NOW} + (@capacity - ${REFILLED} + 1) / @rate
       WHERE ${REFILLED} >= 1
       RETURNING "tokens"`,
      values,
    ),
  );
  if (taken.length > 0) return { ok: true };
  const [bucket] = await sql.rows<{ tokens: unknown }>(
    ...named(`SELECT ${REFILLED} AS "tokens" FROM "ToolRateBucket" AS bucket WHERE "key" = @key`, values),
  );
  const missing = 1 - Number(bucket?.tokens ?? 0);
  return { ok: false, retryAfterSeconds: Math.max(1, Math.ceil(missing / values.rate)) };
}

/** `@name` placeholders as the driver's `?`s and their values in order; numbers are sent as float8. */
function named(text: string, values: Record<string, string | number>): [string, (string | number)[]] {
  const params: (string | number)[] = [];
  const query = text.replace(/@(\w+)/g, (_, name: string) => {
    params.push(values[name]);
    return typeof values[name] === "number" ? "?::float8" : "?";
  });
  return [query, params];
}

async function sweepFullBuckets(): Promise<void> {
  try {
    await sql.execute(`DELETE FROM "ToolRateBucket" WHERE "fullAt" < ${NOW}`);
  } catch (error) {
    console.error("Could not sweep the rate limits' full buckets:", error);
  }
}
