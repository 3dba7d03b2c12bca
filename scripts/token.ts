// API tokens without a browser: `npm run token -- create --name NAME [--identity ID | --email ADDRESS] [--json]`,
// `list`, `revoke --id TOKEN_ID` (each with --identity or --email). Against the database DATABASE_URL names (migrated first), through the query
// functions POST /api/tokens uses, so a token made here is the one the app checks. A new identity unless --identity
// gives one: a browser's is the part before the dot of its `toolsmith_id` cookie (the whole value is taken too), or
// --email names an account (lib/accounts/), whose token survives any change of browser.
import { parseArgs } from "node:util";
import nextEnv from "@next/env";
import { z } from "zod";
import { NewApiToken } from "@/lib/contract/requests";
import { environment, SettingsError } from "@/lib/settings/environment.mjs";

const USAGE = `Usage:
  npm run token -- create --name NAME [--identity ID | --email ADDRESS] [--json]
      a new token: for the account of ADDRESS, for the identity ID, or for a new identity
  npm run token -- list (--identity ID | --email ADDRESS) [--json]   its tokens (never the tokens themselves)
  npm run token -- revoke (--identity ID | --email ADDRESS) --id TOKEN_ID   revoke one of them`;

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

/** The owner --identity or --email names: an account's id is the owner of what it owns. */
async function ownerOf(identity: string | undefined, email: string | undefined): Promise<string | undefined> {
  if (email === undefined) return identityOf(identity);
  if (identity !== undefined) fail("Give --identity or --email, not both.");
  const { accountByEmail } = await import("@/lib/db/queries/accounts");
  const account = await accountByEmail(email);
  return account?.id ?? fail(`No account has the address ${email}; sign in with it once in the app first.`);
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
  const identity = await ownerOf(values.identity, values.email);
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
        `Identity: ${owner}${values.email ? ` (the account of ${values.email})` : identity ? "" : " (new)"}`,
        `Name:     ${created.name}`,
        "",
        "It is shown this once (only its hash is kept). Call the API with it:",
        `  curl -H "Authorization: Bearer ${created.token}" ${url}/api/tools`,
      ].join("\n"),
      { token: created.token, identity: owner, id: created.id, name: created.name, createdAt: created.createdAt },
    );
  } else if (command === "list") {
    const owner = identity ?? fail("list needs --identity or --email.");
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
    const owner = identity ?? fail("revoke needs --identity or --email (a token is revoked by whoever it acts for).");
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
