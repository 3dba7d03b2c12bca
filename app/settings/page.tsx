import type { Metadata } from "next";
import { headers } from "next/headers";
import { AccountSettings, SignInInvitation } from "@/components/account/AccountSettings";
import { ApiTokens } from "@/components/settings/ApiTokens";
import { McpServers } from "@/components/settings/McpServers";
import { Secrets } from "@/components/settings/Secrets";
import { secretViews } from "@/lib/secrets/store";
import { profileChoiceFor } from "@/lib/accounts/admin";
import { mcpServersWithStatus } from "@/lib/tools/mcp-tools";
import { findProfile } from "@/lib/settings/profiles";
import { accountView, pageAccount, sessionsView } from "@/lib/accounts/account";
import { listPasskeys } from "@/lib/db/queries/passkeys";
import { signedInOf } from "@/lib/http/session";
import { authConfig } from "@/lib/settings/config";
import { DisplayName } from "@/components/settings/DisplayName";
import { displayName } from "@/lib/db/queries/reviews";
import { PageShell } from "@/components/ui/PageShell";
import { listApiTokens } from "@/lib/db/queries/api-tokens";
import { memberPageIdentity } from "@/lib/http/access";

export const metadata: Metadata = { title: "Settings · Toolsmith" };

export default async function SettingsPage() {
  const identity = await memberPageIdentity();
  const [tokens, name] = identity ? await Promise.all([listApiTokens(identity), displayName(identity)]) : [[], ""];
  const account = await pageAccount();
  const mcpServers = identity
    ? await mcpServersWithStatus(identity, findProfile((await profileChoiceFor(identity)).defaultProfile))
    : [];
  const secrets = identity ? await secretViews(identity) : [];
  const current = account ? await signedInOf({ headers: await headers() }) : undefined;
  return (
    <PageShell current="/settings">
      {account ? (
        <AccountSettings
          account={await accountView(account)}
          initial={await sessionsView(account.id, current?.sessionId)}
          passkeys={(await listPasskeys(account.id)).map((passkey) => ({
            ...passkey,
            createdAt: passkey.createdAt.toISOString(),
            lastUsedAt: passkey.lastUsedAt?.toISOString() ?? null,
          }))}
        />
      ) : (
        authConfig().mode !== "anonymous" && <SignInInvitation />
      )}
      <DisplayName initial={name ?? ""} />
      <ApiTokens
        initial={tokens.map((token) => ({
          ...token,
          createdAt: token.createdAt.toISOString(),
          lastUsedAt: token.lastUsedAt?.toISOString() ?? null,
        }))}
      />
      <Secrets initial={secrets} />
      <McpServers initial={mcpServers} />
    </PageShell>
  );
}
