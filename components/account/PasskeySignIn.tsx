"use client";

import { useState } from "react";
import { startAuthentication, type PublicKeyCredentialRequestOptionsJSON } from "@simplewebauthn/browser";
import { api, problemText } from "@/lib/api/client";

/** "Sign in with a passkey": the authenticator offers this site's passkeys, so no address is asked for. */
export function PasskeySignIn({ next }: { next: string }) {
  const [problem, setProblem] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  async function signIn() {
    setBusy(true);
    setProblem(null);
    try {
      const optionsJSON = (await api.passkeySignInOptions()) as unknown as PublicKeyCredentialRequestOptionsJSON;
      await api.passkeySignIn(await startAuthentication({ optionsJSON }));
      window.location.assign(next);
    } catch (error) {
      setProblem(problemText(error));
      setBusy(false);
    }
  }
  return (
    <div className="flex flex-col gap-2">
      <button
        type="button"
        onClick={() => void signIn()}
        disabled={busy}
        className="inline-flex items-center justify-center rounded-md border border-zinc-300 px-4 py-2 text-sm font-medium hover:bg-zinc-100 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-emerald-700 disabled:opacity-60 dark:border-zinc-600 dark:hover:bg-zinc-800"
      >
        Sign in with a passkey
      </button>
      {problem && (
        <p role="alert" className="text-sm text-red-700 dark:text-red-400">
          {problem}
        </p>
      )}
    </div>
  );
}
