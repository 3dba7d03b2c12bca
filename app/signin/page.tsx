import type { Metadata } from "next";
import { notFound } from "next/navigation";
import { LogIn } from "lucide-react";
import { EmailSignIn } from "@/components/account/EmailSignIn";
import { PasskeySignIn } from "@/components/account/PasskeySignIn";
import { PageShell } from "@/components/ui/PageShell";
import { PageTitle } from "@/components/ui/PageTitle";
import { emailLinksOffered } from "@/lib/accounts/email-link";
import { nextPath } from "@/lib/accounts/next-path";
import { authConfig } from "@/lib/settings/config";

export const metadata: Metadata = { title: "Sign in · Toolsmith" };

/** The ways in this server offers; what the visitor did without an account becomes the account's. */
/** What went wrong with a sign-in that came back here (`?error=`), in words. */
const FAILURES: Record<string, string> = {
  oidc_expired: "That sign-in took too long or was started in another browser. Start it again here.",
  oidc_failed: "The identity provider's answer did not check out, so you are not signed in. Try again.",
  oidc_unavailable: "The identity provider cannot be reached just now. Try again in a minute.",
  oidc_no_verified_email:
    "The identity provider did not confirm your email address, so it cannot sign you in here. Verify the address with the provider, or use another way in.",
  domain_not_allowed: "Accounts on this server are for addresses of its allowed domains only.",
  rate_limited: "Too many sign-in attempts from here; wait a minute and try again.",
};

export default async function SignInPage({
  searchParams,
}: {
  searchParams: Promise<{ next?: string; error?: string }>;
}) {
  const { mode, oidc } = authConfig();
  if (mode === "anonymous") notFound();
  const { next: asked, error } = await searchParams;
  const next = nextPath(asked);
  const failure = error ? (FAILURES[error] ?? "That sign-in did not work. Try again.") : undefined;
  return (
    <PageShell>
      <PageTitle icon={LogIn} title="Sign in">
        {mode === "required"
          ? "This server is for its members: sign in to chat, and to see your conversations and tools."
          : "Sign in to keep your conversations, tools and tokens on any browser. What you made here without an account comes with you."}
      </PageTitle>
      {failure && (
        <p
          role="alert"
          className="mt-4 max-w-md rounded-md border border-rose-300 bg-rose-50 p-3 text-sm text-rose-900 dark:border-rose-800 dark:bg-rose-950/40 dark:text-rose-100"
        >
          {failure}
        </p>
      )}
      <div className="mt-6 flex max-w-md flex-col gap-6">
        <PasskeySignIn next={next} />
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
