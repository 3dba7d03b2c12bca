import { LogIn } from "lucide-react";
import { PageShell } from "@/components/ui/PageShell";
import { PageTitle } from "@/components/ui/PageTitle";

/**
 * A members-only share link opened by someone not signed in: a way to sign in and back, and nothing of the
 * conversation, not even its title.
 */
export function MembersOnly({ path }: { path: string }) {
  return (
    <PageShell>
      <PageTitle icon={LogIn} title="Sign in to see this conversation">
        This shared conversation is for members of this server.
      </PageTitle>
      <a
        href={`/signin?next=${encodeURIComponent(path)}`}
        className="mt-6 inline-flex items-center justify-center rounded-md bg-emerald-700 px-4 py-2 text-sm font-medium text-white hover:bg-emerald-800 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-emerald-700"
      >
        Sign in
      </a>
    </PageShell>
  );
}

export const membersOnlyMetadata = { title: "Sign in · Toolsmith", robots: { index: false, follow: false } };
