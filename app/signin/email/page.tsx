import type { Metadata } from "next";
import { notFound } from "next/navigation";
import { MailCheck } from "lucide-react";
import Link from "next/link";
import { ConfirmEmailLink } from "@/components/account/ConfirmEmailLink";
import { PageShell } from "@/components/ui/PageShell";
import { PageTitle } from "@/components/ui/PageTitle";
import { emailLinksOffered, signInLinkAddress } from "@/lib/accounts/email-link";
import { authConfig } from "@/lib/settings/config";

export const metadata: Metadata = { title: "Sign in by email · Toolsmith", referrer: "no-referrer" };

/** Where an email link lands: it names the address and asks to continue; the POST behind the button signs in. */
export default async function EmailLinkPage({ searchParams }: { searchParams: Promise<{ token?: string }> }) {
  if (authConfig().mode === "anonymous" || !emailLinksOffered()) notFound();
  const { token } = await searchParams;
  const email = token && /^[\w-]{43}$/.test(token) ? await signInLinkAddress(token) : undefined;
  return (
    <PageShell>
      <PageTitle icon={MailCheck} title="Sign in by email">
        {email
          ? "You opened a sign-in link. Continue to sign in on this browser."
          : "This sign-in link was used already or has expired."}
      </PageTitle>
      {email && token ? (
        <ConfirmEmailLink token={token} email={email} />
      ) : (
        <p className="mt-6 text-sm">
          <Link href="/signin" className="text-sky-700 underline dark:text-sky-400">
            Ask for a new link
          </Link>
        </p>
      )}
    </PageShell>
  );
}
