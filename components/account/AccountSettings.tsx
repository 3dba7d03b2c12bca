"use client";

import { UserRound } from "lucide-react";
import { useRouter } from "next/navigation";
import { useState } from "react";
import { api, problemText, type Account, type AccountSession, type Passkey } from "@/lib/api/client";
import { Passkeys } from "./Passkeys";
import { Button } from "@/components/ui/Button";
import { PageTitle } from "@/components/ui/PageTitle";

const METHODS: Record<AccountSession["method"], string> = {
  email: "email link",
  oidc: "single sign-on",
  passkey: "passkey",
};

/** The signed-in account: its browsers (each revocable), signing out, the export, and deleting it all. */
export function AccountSettings({
  account,
  initial,
  passkeys,
}: {
  account: Account;
  initial: AccountSession[];
  passkeys: Passkey[];
}) {
  const [sessions, setSessions] = useState(initial);
  const [confirm, setConfirm] = useState("");
  const [problem, setProblem] = useState<string | null>(null);
  const router = useRouter();
  // The browser is someone else now (a new anonymous identity): home, with every server component read again.
  const leave = () => {
    router.replace("/");
    router.refresh();
  };

  const act = async (action: () => Promise<void>) => {
    setProblem(null);
    try {
      await action();
    } catch (error) {
      setProblem(problemText(error));
    }
  };
  const revoke = (id: string) =>
    act(async () => {
      await api.revokeSession(id);
      setSessions((list) => list.filter((session) => session.id !== id));
    });
  const signOut = (everywhere: boolean) =>
    act(async () => {
      await api.signOut(everywhere);
      leave();
    });
  const deleteAccount = (event: React.FormEvent) => {
    event.preventDefault();
    void act(async () => {
      await api.deleteAccount(confirm);
      leave();
    });
  };

  return (
    <section aria-label="Account" className="mb-10">
      <PageTitle icon={UserRound} title="Account">
        Signed in as <strong>{account.email}</strong>. Your conversations, tools and tokens follow you to every browser
        you sign in on.
      </PageTitle>
      {problem && (
        <p role="alert" className="mt-3 text-sm text-rose-700 dark:text-rose-400">
          {problem}
        </p>
      )}
      <h2 className="mt-6 text-sm font-medium">Signed-in browsers</h2>
      <ul className="mt-2 divide-y divide-zinc-200 rounded-lg border border-zinc-200 dark:divide-zinc-800 dark:border-zinc-800">
        {sessions.map((session) => (
          <li key={session.id} className="flex flex-wrap items-center gap-x-3 gap-y-1 px-3 py-2 text-sm">
            <span className="min-w-0 flex-1 break-words">
              {session.current && <strong className="mr-2">This browser</strong>}
              {session.userAgent || "Unknown browser"}
              <span className="block text-xs text-zinc-600 dark:text-zinc-400">
                By {METHODS[session.method]}, {new Date(session.createdAt).toLocaleString()}; last seen{" "}
                {new Date(session.lastSeenAt).toLocaleString()} from {session.ip || "an unknown address"}
              </span>
            </span>
            {!session.current && (
              <Button
                variant="secondary"
                size="sm"
                onClick={() => void revoke(session.id)}
                aria-label={`Sign out ${session.userAgent || "this browser"}`}
              >
                Sign out
              </Button>
            )}
          </li>
        ))}
      </ul>
      <div className="mt-3 flex flex-wrap gap-2">
        <Button variant="secondary" onClick={() => void signOut(false)}>
          Sign out
        </Button>
        <Button variant="secondary" onClick={() => void signOut(true)}>
          Sign out everywhere
        </Button>
        <a
          href="/api/account/export"
          download
          className="inline-flex items-center rounded-md border border-zinc-300 px-3 py-1.5 text-sm hover:bg-zinc-100 dark:border-zinc-700 dark:hover:bg-zinc-800"
        >
          Download everything
        </a>
      </div>
      <Passkeys initial={passkeys} />
      <h2 className="mt-8 text-sm font-medium">Delete the account</h2>
      <p className="mt-1 text-sm text-zinc-700 dark:text-zinc-300">
        Every conversation, tool, call, token, review and share link goes with it, for good. Download everything first
        if you want to keep any of it.
      </p>
      <form onSubmit={deleteAccount} className="mt-2 flex flex-wrap items-end gap-2">
        <label className="text-sm">
          <span className="block">Type {account.email} to confirm</span>
          <input
            value={confirm}
            onChange={(event) => setConfirm(event.target.value)}
            required
            autoComplete="off"
            className="mt-1 w-72 max-w-full rounded-md border border-zinc-300 bg-white px-2 py-1.5 dark:border-zinc-700 dark:bg-zinc-900"
          />
        </label>
        <Button type="submit" variant="danger" disabled={confirm.trim().toLowerCase() !== account.email}>
          Delete account
        </Button>
      </form>
    </section>
  );
}

/** For an anonymous visitor when accounts are on: what signing in gives. */
export function SignInInvitation() {
  return (
    <section aria-label="Account" className="mb-10">
      <PageTitle icon={UserRound} title="Account">
        You are not signed in: what you make lives in this browser only.{" "}
        <a href="/signin?next=/settings" className="text-sky-700 underline dark:text-sky-400">
          Sign in
        </a>{" "}
        to keep it on every browser; it comes with you.
      </PageTitle>
    </section>
  );
}
