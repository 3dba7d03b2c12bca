"use client";

import { useState } from "react";
import { api, problemText } from "@/lib/api/client";
import { Button } from "@/components/ui/Button";

/** The last step of an email link: a button, so that a mail scanner opening the link signs nobody in. */
export function ConfirmEmailLink({ token, email }: { token: string; email: string }) {
  const [problem, setProblem] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  const confirm = async () => {
    setProblem(null);
    setBusy(true);
    try {
      const { next } = await api.signInWithLink(token);
      window.location.assign(next);
    } catch (error) {
      setProblem(problemText(error));
      setBusy(false);
    }
  };

  return (
    <div className="mt-6">
      <Button variant="primary" onClick={() => void confirm()} disabled={busy}>
        Continue as {email}
      </Button>
      {problem && (
        <p role="alert" className="mt-3 text-sm text-rose-700 dark:text-rose-400">
          {problem}
        </p>
      )}
    </div>
  );
}
