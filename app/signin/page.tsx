import type { Metadata } from "next";
import { notFound } from "next/navigation";
import { LogIn } from "lucide-react";
import { EmailSignIn } from "@/components/account/EmailSignIn";
import { PageShell, PageTitle } from "@/components/ui/PageShell";
import { emailLinksOffered } from "@/lib/accounts/email-link";
import { nextPath } from "@/lib/accounts/next-path";
import { authConfig } from "@/lib/settings/config";

export const metadata: Metadata = { title: "Sign in · Toolsmith" };

/** The ways in this server offers; what the visitor did without an account becomes the account's. */
export default async function SignInPage({ searchParams }: { searchParams: Promise<{ next?: string }> }) {
  const { mode, oidc } = authConfig();
  if (mode === "anonymous") notFound();
  const next = nextPath((await searchParams).next);
  return (
    <PageShell>
      <PageTitle icon={LogIn} title="Sign in">
        {mode === "required"
          ? "This server is for its members: sign in to chat, and to see your conversations and tools."
          : "Sign in to keep your conversations, tools and tokens on any browser. What you made here without an account comes with you."}
      </PageTitle>
      <div className="mt-6 flex max-w-md flex-col gap-6">
        {oidc && (
          <a
            href={`/api/auth/signin/oidc?next=${encodeURIComponent(next)}`}
            className="inline-flex items-center justify-center rounded-md bg-emerald-700 px-4 py-2 text-sm font-medium text-white hover:bg-emerald-800 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-emerald-700"
          >
            Sign in with {oidc.name}
          </a>
        )}
        {emailLinksOffered() && <EmailSignIn next={next} />}
      </div>
    </PageShell>
  );
}
