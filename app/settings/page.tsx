import type { Metadata } from "next";
import { ApiTokens } from "@/components/settings/ApiTokens";
import { DisplayName } from "@/components/settings/DisplayName";
import { displayName } from "@/lib/db/queries/reviews";
import { PageShell } from "@/components/ui/PageShell";
import { listApiTokens } from "@/lib/db/queries/api-tokens";
import { memberPageIdentity } from "@/lib/http/access";

export const metadata: Metadata = { title: "Settings · Toolsmith" };

export default async function SettingsPage() {
  const identity = await memberPageIdentity();
  const [tokens, name] = identity ? await Promise.all([listApiTokens(identity), displayName(identity)]) : [[], ""];
  return (
    <PageShell current="/settings">
      <DisplayName initial={name ?? ""} />
      <ApiTokens
        initial={tokens.map((token) => ({
          ...token,
          createdAt: token.createdAt.toISOString(),
          lastUsedAt: token.lastUsedAt?.toISOString() ?? null,
        }))}
      />
    </PageShell>
  );
}
