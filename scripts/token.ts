// API tokens without a browser: `npm run token -- create --name NAME [--identity ID | --email ADDRESS] [--json]`,
// `list --identity ID` (or --email),
// `revoke --identity ID --id TOKEN_ID`. Against the database DATABASE_URL names (migrated first), through the query
// functions POST /api/tokens uses, so a token made here is the one the app checks. A new identity unless --identity
// gives one: a browser's is the part before the dot of its `toolsmith_id` cookie (the whole value is taken too).
import { parseArgs } from "node:util";
import nextEnv from "@next/env";
import { z } from "zod";
import { NewApiToken } from "@/lib/contract/requests";
import { environment, SettingsError } from "@/lib/settings/environment.mjs";

const USAGE = `Usage:
  npm run token -- create --name NAME [--identity ID] [--json]   a new token, for a new identity unless ID is given
  npm run token -- create --name NAME --email ADDRESS [--json]   a new token for the account with that address
  npm run token -- list --identity ID [--json]                   the identity's tokens (never the tokens themselves)
  npm run token -- list --email ADDRESS [--json]                 the account's tokens
  npm run token -- revoke --identity ID --id TOKEN_ID            revoke one of them`;

/** A mistake of the person running the script: said, with the usage when it is about the arguments, exit 1. */
class UsageError extends Error {}

const fail = (message: string): never => {
  throw new UsageError(message);
};

/** An identity is a UUID; a browser's cookie value is `<uuid>.<signature>`, checked against the server's secret. */
async function identityOf(given: string | undefined): Promise<string | undefined> {
  if (given === undefined) return undefined;
  if (z.uuid().safeParse(given).success) return given;
  const { verifyIdentity } = await import("@/lib/http/identity");
  return (
    verifyIdentity(given) ??
    fail(
      `--identity must be an identity (a UUID) or a toolsmith_id cookie value this server signed; got "${given.slice(0, 80)}".`,
    )
  );
}

/** An account's id is the identity of what it owns: the account with that address, else an error saying so. */
async function accountOf(email: string): Promise<string> {
  const { accountByEmail } = await import("@/lib/db/queries/accounts");
  const account = await accountByEmail(email.trim());
  return (
    account?.id ?? fail(`There is no account with the address "${email}"; it is made when its owner first signs in.`)
  );
}

async function main(argv: string[]): Promise<void> {
  const { positionals, values } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      name: { type: "string" },
      identity: { type: "string" },
      email: { type: "string" },
      id: { type: "string" },
      json: { type: "boolean", default: false },
    },
  });
  const [command, ...extra] = positionals;
  if (extra.length) fail(`One command at a time; got "${positionals.join(" ")}".`);
  if (values.identity !== undefined && values.email !== undefined)
    fail("Give --identity or --email, not both: a token acts for one identity.");
  const identity = values.email === undefined ? await identityOf(values.identity) : await accountOf(values.email);
  const { createApiToken, deleteApiToken, listApiTokens } = await import("@/lib/db/queries/api-tokens");
  const print = (human: string, machine: unknown) => console.log(values.json ? JSON.stringify(machine) : human);

  if (command === "create") {
    const parsed = NewApiToken.safeParse({ name: values.name ?? "" });
    if (!parsed.success) fail(`--name: ${parsed.error.issues[0].message}.`);
    const owner = identity ?? (await import("node:crypto")).randomUUID();
    const created = await createApiToken(owner, parsed.data!.name);
    const url = `http://localhost:${environment().PORT}`;
    print(
      [
        `Token:    ${created.token}`,
        `Identity: ${owner}${identity ? "" : " (new)"}`,
        `Name:     ${created.name}`,
        "",
        "It is shown this once (only its hash is kept). Call the API with it:",
        `  curl -H "Authorization: Bearer ${created.token}" ${url}/api/tools`,
      ].join("\n"),
      { token: created.token, identity: owner, id: created.id, name: created.name, createdAt: created.createdAt },
    );
  } else if (command === "list") {
    const owner = identity ?? fail("list needs --identity.");
    const tokens = await listApiTokens(owner);
    print(
      tokens.length
        ? tokens
            .map(
              (token) =>
                `${token.id}  ${token.name}  created ${token.createdAt.toISOString()}` +
                (token.lastUsedAt ? `, last used ${token.lastUsedAt.toISOString()}` : ", never used"),
            )
            .join("\n")
        : `The identity ${owner} has no tokens.`,
      tokens,
    );
  } else if (command === "revoke") {
    const owner = identity ?? fail("revoke needs --identity (a token is revoked by whoever it acts for).");
    const id = values.id ?? fail("revoke needs --id, the token's id (see list).");
    if (!(await deleteApiToken(id, owner))) fail(`The identity ${owner} has no token ${id}.`);
    print(`Revoked ${id}.`, { revoked: id });
  } else {
    fail(command ? `Unknown command "${command}".` : "Say what to do.");
  }
}

/** Exit once what was printed is out: a pipe's writes are asynchronous, and the database's pool would keep the process. */
const exit = (code: number) => process.stdout.write("", () => process.exit(code));

nextEnv.loadEnvConfig(process.cwd(), false, { info: () => {}, error: console.error });
try {
  environment();
  await main(process.argv.slice(2));
  exit(0);
} catch (error) {
  if (error instanceof SettingsError) console.error(`Cannot reach the database: ${error.message}`);
  else if (error instanceof UsageError) console.error(`${error.message}\n\n${USAGE}`);
  // Prisma's "the table does not exist": a database that was never migrated.
  else if ((error as { code?: string }).code === "P2021")
    console.error("The database DATABASE_URL names has no tables yet: run `npm run db:migrate` first.");
  else if (error instanceof TypeError && (error as { code?: string }).code?.startsWith("ERR_PARSE_ARGS"))
    console.error(`${error.message}\n\n${USAGE}`);
  else console.error(`The token could not be made: ${error instanceof Error ? error.message : String(error)}`);
  exit(1);
}
