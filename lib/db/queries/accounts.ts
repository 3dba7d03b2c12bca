import { randomUUID } from "node:crypto";
import { db, sql, transaction } from "@/lib/db/driver/client";
import { toDate } from "@/lib/db/driver/sql";

type Tx = Parameters<Parameters<typeof transaction>[0]>[0];

export interface AccountRow {
  id: string;
  email: string;
  name: string | null;
  /** JSON ["name", ...], or null: every profile. */
  profiles: string | null;
  createdAt: Date;
}

const listed = { id: true, email: true, name: true, profiles: true, createdAt: true } as const;

/** SQL (lib/db/driver/sql.ts): every call through the API asks it for the caller's profiles, an account or not. */
export async function accountById(id: string): Promise<AccountRow | null> {
  const [row] = await sql.rows<Record<keyof AccountRow, unknown>>(
    `SELECT "id", "email", "name", "profiles", "createdAt" FROM "Account" WHERE "id" = ?`,
    [id],
  );
  return row ? { ...(row as AccountRow), createdAt: toDate(row.createdAt) } : null;
}

export function accountByEmail(email: string) {
  return db.account.findUnique({ where: { email: email.toLowerCase() }, select: listed });
}

/** The account of a verified address, made if there is none (two sign-ins at once make one). */
export async function accountForEmail(email: string, name?: string): Promise<AccountRow> {
  const address = email.toLowerCase();
  return db.account.upsert({
    where: { email: address },
    create: { id: randomUUID(), email: address, name: name ?? null },
    update: {},
    select: listed,
  });
}

/** The addresses of those of these owner ids that are accounts (the rest are anonymous identities). */
export async function accountEmails(ids: string[]): Promise<Map<string, string>> {
  const accounts = await db.account.findMany({ where: { id: { in: ids } }, select: { id: true, email: true } });
  return new Map(accounts.map(({ id, email }) => [id, email]));
}

export function listAccounts() {
  return db.account.findMany({ orderBy: { createdAt: "asc" }, select: listed });
}

/** The agent profiles an account may use (null: every one), as an admin sets them. */
export async function setAccountProfiles(id: string, profiles: string[] | null): Promise<boolean> {
  const { count } = await db.account.updateMany({
    where: { id },
    data: { profiles: profiles === null ? null : JSON.stringify(profiles) },
  });
  return count > 0;
}

/** How the account signs in: its passkeys, its identity-provider logins, and its address (email links). */
export async function signInMethods(accountId: string) {
  const [passkeys, oidc] = await Promise.all([
    db.passkey.count({ where: { accountId } }),
    db.oidcLogin.count({ where: { accountId } }),
  ]);
  return { passkeys, oidc };
}

/**
 * Everything the identity `from` owns becomes `to`'s, in one transaction: an anonymous identity's things when it
 * signs in. Where both have one of a kind that must be unique (a review of the same run, a document of the same
 * name), the account keeps its own and the moved one is renamed or, for a verdict, dropped as the older word, or
 * for an MCP server or a secret of the same name, dropped.
 */
export async function moveOwnership(from: string, to: string): Promise<void> {
  if (from === to) return;
  await transaction(async (tx) => {
    await tx.conversation.updateMany({ where: { ownerId: from }, data: { ownerId: to } });
    await tx.tool.updateMany({ where: { ownerId: from }, data: { ownerId: to } });
    await tx.conversationFile.updateMany({ where: { ownerId: from }, data: { ownerId: to } });
    await tx.apiToken.updateMany({ where: { ownerId: from }, data: { ownerId: to } });
    await tx.toolAudit.updateMany({ where: { ownerId: from }, data: { ownerId: to } });
    await moveDocuments(tx, from, to);
    await moveKeyValues(tx, from, to);
    await moveReviews(tx, from, to);
    await moveMcpServers(tx, from, to);
    await moveSecrets(tx, from, to);
  });
}

/** A secret of a name the account has already: the account's is kept, the anonymous one dropped (its value too). */
async function moveSecrets(tx: Tx, from: string, to: string) {
  const names = (await tx.secret.findMany({ where: { ownerId: to }, select: { name: true } })).map((row) => row.name);
  await tx.secret.deleteMany({ where: { ownerId: from, name: { in: names } } });
  await tx.secret.updateMany({ where: { ownerId: from }, data: { ownerId: to } });
}

/** A server of a name the account has already: the account's is kept, the anonymous one dropped. */
async function moveMcpServers(tx: Tx, from: string, to: string) {
  const names = (await tx.mcpServer.findMany({ where: { ownerId: to }, select: { name: true } })).map(
    (row) => row.name,
  );
  await tx.mcpServer.deleteMany({ where: { ownerId: from, name: { in: names } } });
  await tx.mcpServer.updateMany({ where: { ownerId: from }, data: { ownerId: to } });
}

async function moveDocuments(tx: Tx, from: string, to: string) {
  const documents = await tx.librarianDocument.findMany({ where: { ownerId: from } });
  for (const document of documents) {
    const taken = async (name: string) =>
      (await tx.librarianDocument.count({ where: { ownerId: to, collection: document.collection, name } })) > 0;
    let name = document.name;
    for (let copy = 2; await taken(name); copy++) name = `${document.name}-${copy}`;
    await tx.librarianDocument.update({ where: { id: document.id }, data: { ownerId: to, name } });
  }
}

/** Key-value namespaces are "<identity>/<name>": the newer value of a key both have is kept. */
async function moveKeyValues(tx: Tx, from: string, to: string) {
  const entries = await tx.keyValue.findMany({ where: { namespace: { startsWith: `${from}/` } } });
  for (const entry of entries) {
    const namespace = `${to}/${entry.namespace.slice(from.length + 1)}`;
    const existing = await tx.keyValue.findUnique({ where: { namespace_key: { namespace, key: entry.key } } });
    await tx.keyValue.delete({ where: { namespace_key: { namespace: entry.namespace, key: entry.key } } });
    if (existing && existing.updatedAt >= entry.updatedAt) continue;
    await tx.keyValue.upsert({
      where: { namespace_key: { namespace, key: entry.key } },
      create: { ...entry, namespace },
      update: { value: entry.value, expiresAt: entry.expiresAt },
    });
  }
}

async function moveReviews(tx: Tx, from: string, to: string) {
  await tx.annotation.updateMany({ where: { authorId: from }, data: { authorId: to } });
  const verdicts = await tx.verdict.findMany({ where: { authorId: from } });
  for (const verdict of verdicts) {
    const own = await tx.verdict.findUnique({ where: { runId_authorId: { runId: verdict.runId, authorId: to } } });
    if (own && own.createdAt >= verdict.createdAt) await tx.verdict.delete({ where: { id: verdict.id } });
    else {
      if (own) await tx.verdict.delete({ where: { id: own.id } });
      await tx.verdict.update({ where: { id: verdict.id }, data: { authorId: to } });
    }
  }
  const numbers = await tx.reviewer.findMany({ where: { identityId: from } });
  for (const reviewer of numbers) {
    const key = { conversationId: reviewer.conversationId, identityId: to };
    if (await tx.reviewer.findUnique({ where: { conversationId_identityId: key } }))
      await tx.reviewer.delete({ where: { conversationId_identityId: { ...key, identityId: from } } });
    else await tx.reviewer.update({ where: { conversationId_identityId: { ...key, identityId: from } }, data: key });
  }
  const name = await tx.displayName.findUnique({ where: { identityId: from } });
  if (name) {
    await tx.displayName.delete({ where: { identityId: from } });
    if (!(await tx.displayName.findUnique({ where: { identityId: to } })))
      await tx.displayName.create({ data: { identityId: to, name: name.name } });
  }
}

/**
 * The account and everything it owns: conversations (with their runs, logs, share links and reviews), tools and
 * every call of them, tokens, its reviews of others' conversations, its documents and stored values, its MCP
 * servers, its sessions, passkeys and sign-in links, and its audit entries.
 */
export async function deleteAccount(id: string): Promise<void> {
  await transaction(async (tx) => {
    const conversations = (await tx.conversation.findMany({ where: { ownerId: id }, select: { id: true } })).map(
      (row) => row.id,
    );
    const tools = (await tx.tool.findMany({ where: { ownerId: id }, select: { id: true } })).map((row) => row.id);
    await tx.toolExecution.deleteMany({
      where: { OR: [{ toolId: { in: tools } }, { conversationId: { in: conversations } }] },
    });
    await tx.tool.deleteMany({ where: { ownerId: id } });
    await tx.conversation.deleteMany({ where: { ownerId: id } });
    await tx.apiToken.deleteMany({ where: { ownerId: id } });
    await tx.toolAudit.deleteMany({ where: { ownerId: id } });
    await tx.librarianDocument.deleteMany({ where: { ownerId: id } });
    await tx.keyValue.deleteMany({ where: { namespace: { startsWith: `${id}/` } } });
    await tx.annotation.deleteMany({ where: { authorId: id } });
    await tx.verdict.deleteMany({ where: { authorId: id } });
    await tx.reviewer.deleteMany({ where: { identityId: id } });
    await tx.displayName.deleteMany({ where: { identityId: id } });
    await tx.mcpServer.deleteMany({ where: { ownerId: id } });
    await tx.secret.deleteMany({ where: { ownerId: id } });
    await tx.account.deleteMany({ where: { id } });
  });
}

/** The account an identity provider's subject signed in as before, if any. */
export async function accountOfOidcLogin(issuer: string, subject: string): Promise<AccountRow | null> {
  const login = await db.oidcLogin.findUnique({
    where: { issuer_subject: { issuer, subject } },
    select: { account: { select: listed } },
  });
  return login?.account ?? null;
}

/** The provider's subject is this account from now on (two first sign-ins at once link it once). */
export async function linkOidcLogin(issuer: string, subject: string, accountId: string): Promise<void> {
  await db.oidcLogin.upsert({
    where: { issuer_subject: { issuer, subject } },
    create: { issuer, subject, accountId },
    update: {},
  });
}
