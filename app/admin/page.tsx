import type { Metadata } from "next";
import { notFound } from "next/navigation";
import { AdminAccounts } from "@/components/admin/AdminAccounts";
import { McpServers } from "@/components/settings/McpServers";
import { Secrets } from "@/components/settings/Secrets";
import { everyoneSecretViews } from "@/lib/secrets/store";
import { PageShell } from "@/components/ui/PageShell";
import { adminAccountJson, adminOf } from "@/lib/accounts/admin";
import { listAccounts } from "@/lib/db/queries/accounts";
import { memberPageIdentity } from "@/lib/http/access";
import { everyoneServersWithStatus } from "@/lib/tools/mcp-tools";
import { profileChoice } from "@/lib/settings/profiles";

export const dynamic = "force-dynamic";
export const metadata: Metadata = { title: "Admin · Toolsmith" };

/**
 * The admins' page (TOOLSMITH_ADMIN_EMAILS): every account and the profiles it may use, and the MCP servers for
 * everyone, and the secrets for everyone; 404 for anyone else.
 */
export default async function AdminPage() {
  if (!(await adminOf(await memberPageIdentity()))) notFound();
  const [accounts, servers, secrets] = await Promise.all([
    listAccounts(),
    everyoneServersWithStatus(),
    everyoneSecretViews(),
  ]);
  return (
    <PageShell current="/admin">
      <AdminAccounts initial={accounts.map(adminAccountJson)} profiles={profileChoice().names} />
      <McpServers initial={servers} forEveryone />
      <Secrets initial={secrets} forEveryone />
    </PageShell>
  );
}
