"use client";

import { useState } from "react";
import { api, problemText } from "@/lib/api/client";
import { Button } from "@/components/ui/Button";
import { Problem } from "@/components/ui/Problem";

/** Ask for a sign-in link by email; the answer is the same for any address. */
export function EmailSignIn({ next }: { next: string }) {
  const [email, setEmail] = useState("");
  const [sent, setSent] = useState<string | null>(null);
  const [problem, setProblem] = useState<string | null>(null);
  const [sending, setSending] = useState(false);

  const send = async (event: React.FormEvent) => {
    event.preventDefault();
    setProblem(null);
    setSending(true);
    try {
      await api.requestSignInLink(email, next);
      setSent(email);
    } catch (error) {
      setProblem(problemText(error));
    } finally {
      setSending(false);
    }
  };

  return (
    <section aria-labelledby="email-sign-in">
      <h2 id="email-sign-in" className="text-sm font-medium">
        With a link by email
      </h2>
      <form onSubmit={(event) => void send(event)} className="mt-2 flex flex-wrap items-end gap-2">
        <label className="min-w-0 flex-1 text-sm">
          <span className="block">Email address</span>
          <input
            type="email"
            autoComplete="email"
            value={email}
            onChange={(event) => setEmail(event.target.value)}
            required
            maxLength={320}
            className="mt-1 w-full rounded-md border border-zinc-300 bg-white px-2 py-1.5 dark:border-zinc-700 dark:bg-zinc-900"
          />
        </label>
        <Button type="submit" variant="primary" disabled={sending}>
          Send me a link
        </Button>
      </form>
      <p role="status" className="mt-2 text-sm text-zinc-700 dark:text-zinc-300">
        {sent && `Check the inbox of ${sent}: if it may sign in here, a link is there. It works once, for 15 minutes.`}
      </p>
      <Problem text={problem} />
    </section>
  );
}
