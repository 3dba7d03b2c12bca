import type { Metadata } from "next";
import { SharedLinks } from "@/components/share/SharedLinks";
import { listShareLinks } from "@/lib/db/queries/share-links";
import { memberPageIdentity } from "@/lib/http/access";

export const dynamic = "force-dynamic";
export const metadata: Metadata = { title: "Shared links · Toolsmith" };

export default async function SharedLinksPage() {
  const identity = await memberPageIdentity();
  const links = identity ? await listShareLinks(identity) : [];
  return (
    <SharedLinks
      initial={links.map((link) => ({
        token: link.token,
        visibility: link.visibility,
        createdAt: link.createdAt.toISOString(),
        conversation: link.conversation,
      }))}
    />
  );
}
