/**
 * The secrets people keep for their tools (issue 50, docs/secrets.md): a person's own, and those an admin keeps for
 * everyone (a person's own wins a name). Values are sealed at rest, bound to their row; they are opened only for a
 * call of a tool that names them, and handed to its SecretBoundary, never to its code.
 */
import type { NewSecret } from "@/lib/contract/requests";
import type { Secret } from "@/lib/contract/responses";
import {
  deleteSecret,
  listSecrets,
  putSecret,
  sealedSecrets,
  type SecretOwner,
  type SecretRow,
} from "@/lib/db/queries/secrets";
import { ApiError, notFound } from "@/lib/platform/errors";
import { sealer, UnsealError } from "@/lib/settings/secret";
import { SECRET_LIMITS } from "@/lib/settings/tool-secrets";
import type { CallSecret } from "@/lib/sandbox/secret-boundary";

/** Its own key: secrets' values are sealed under nothing else's. */
const valueSeal = sealer("toolsmith/tool-secrets");

/** An admin's secrets for everyone: rows without an owner. */
const EVERYONE = null;

/** The secrets a person's tools may use: everyone's that no secret of theirs hides, then their own. */
export async function secretViews(ownerId: string): Promise<Secret[]> {
  const [everyone, own] = await Promise.all([listSecrets(EVERYONE), listSecrets(ownerId)]);
  const ownNames = new Set(own.map((row) => row.name));
  return [
    // When anyone last used everyone's secret is the admin's to see, not every person's.
    ...everyone.filter((row) => !ownNames.has(row.name)).map((row) => ({ ...view(row, "everyone"), lastUsedAt: null })),
    ...own.map((row) => view(row, "personal")),
  ];
}

/** The secrets an admin keeps for everyone. */
export async function everyoneSecretViews(): Promise<Secret[]> {
  return (await listSecrets(EVERYONE)).map((row) => view(row, "everyone"));
}

/** Keep a secret for `ownerId` (null: everyone), or replace the one of that name: its view, and whether it is new. */
export async function keepSecret(
  ownerId: SecretOwner,
  { name, value, hosts }: NewSecret,
): Promise<{ secret: Secret; created: boolean }> {
  const source = ownerId === EVERYONE ? "everyone" : "personal";
  const most = source === "everyone" ? SECRET_LIMITS.forEveryone : SECRET_LIMITS.perPerson;
  const kept = await putSecret(
    { ownerId, name, hosts: [...new Set(hosts)], seal: (id) => valueSeal.seal(value, id) },
    most,
  );
  if (kept === "limit_reached")
    throw new ApiError(
      409,
      "limit_reached",
      source === "everyone"
        ? `There are ${most} secrets for everyone, the most there may be; remove one first.`
        : `You have ${most} secrets, the most one person may keep; remove one first.`,
    );
  return { secret: view(kept.row, source), created: kept.created };
}

/** Remove `ownerId`'s secret (null: everyone's) of that name: 404 when there is none. */
export async function removeSecret(ownerId: SecretOwner, name: string): Promise<void> {
  if (!(await deleteSecret(ownerId, name))) throw notFound("The secret");
}

/**
 * The secrets of `names` as a call of `ownerId`'s uses them, their values opened: the person's own, else
 * everyone's. `missing`: the names neither has (or whose value no longer opens, under another TOOLSMITH_SECRET).
 */
export async function secretsForCall(
  ownerId: string,
  names: readonly string[],
): Promise<{ secrets: CallSecret[]; missing: string[] }> {
  if (names.length === 0) return { secrets: [], missing: [] };
  const rows = await sealedSecrets(ownerId, names);
  const secrets: CallSecret[] = [];
  const missing: string[] = [];
  for (const name of names) {
    const row =
      rows.find((each) => each.name === name && each.ownerId === ownerId) ?? rows.find((each) => each.name === name);
    const value = row && opened(row);
    if (row && value !== undefined) secrets.push({ id: row.id, name, hosts: row.hosts, value });
    else missing.push(name);
  }
  return { secrets, missing };
}

/** What a tool's call answers when it names a secret the caller does not have: what the person must do. */
export const missingSecrets = (missing: readonly string[]) =>
  `This tool uses ${missing.join(", ")}, which ${missing.length === 1 ? "is" : "are"} not set: ask the person to set ` +
  `${missing.join(" and ")} in Settings → Secrets (the value and the hosts it may be sent to), then call it again. ` +
  "Never ask for the value in the chat.";

function opened(row: { id: string; name: string; value: string }): string | undefined {
  try {
    return valueSeal.open(row.value, row.id);
  } catch (error) {
    if (!(error instanceof UnsealError)) throw error;
    console.warn(`The secret ${row.name} (${row.id}) does not open: ${error.message}.`);
    return undefined;
  }
}

function view(row: SecretRow, source: Secret["source"]): Secret {
  return {
    name: row.name,
    hosts: row.hosts,
    source,
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
    lastUsedAt: row.lastUsedAt?.toISOString() ?? null,
  };
}
