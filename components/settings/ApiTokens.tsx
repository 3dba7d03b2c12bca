"use client";

import { KeyRound } from "lucide-react";
import { useState } from "react";
import { api, problemText, type ApiToken } from "@/lib/api/client";
import { Button } from "@/components/ui/Button";
import { CopyButton } from "@/components/ui/CopyButton";
import { PageTitle } from "@/components/ui/PageTitle";

/** Personal API tokens for scripts: created with a name, shown once, revocable. */
export function ApiTokens({ initial }: { initial: ApiToken[] }) {
  const [tokens, setTokens] = useState(initial);
  const [name, setName] = useState("");
  const [created, setCreated] = useState<string | null>(null);
  const [problem, setProblem] = useState<string | null>(null);

  const create = async (event: React.FormEvent) => {
    event.preventDefault();
    setProblem(null);
    try {
      const { token, ...listed } = await api.createToken(name);
      setTokens((list) => [listed, ...list]);
      setCreated(token);
      setName("");
    } catch (error) {
      setProblem(problemText(error));
    }
  };
  const revoke = async (id: string) => {
    try {
      await api.revokeToken(id);
      setTokens((list) => list.filter((token) => token.id !== id));
    } catch (error) {
      setProblem(problemText(error));
    }
  };

  return (
    <section aria-label="API tokens">
      <PageTitle icon={KeyRound} title="API tokens">
        A script sends <code className="font-mono">Authorization: Bearer &lt;token&gt;</code> and acts as you on every{" "}
        <code className="font-mono">/api</code> route (see the{" "}
        <a href="/docs" className="text-sky-700 underline dark:text-sky-400">
          API reference
        </a>
        ). Anyone with a token can use your conversations and tools: revoke the ones you no longer need.
      </PageTitle>
      <form onSubmit={(event) => void create(event)} className="mt-4 flex flex-wrap items-end gap-2">
        <label className="text-sm">
          <span className="block font-medium">Name</span>
          <input
            value={name}
            onChange={(event) => setName(event.target.value)}
            required
            maxLength={100}
            placeholder="e.g. nightly report script"
            className="mt-1 w-72 rounded-md border border-zinc-300 bg-white px-2 py-1.5 dark:border-zinc-700 dark:bg-zinc-900"
          />
        </label>
        <Button type="submit" variant="primary">
          Create token
        </Button>
      </form>
      {created && (
        <div
          role="status"
          className="mt-4 rounded-lg border border-amber-300 bg-amber-50 p-3 text-sm text-amber-950 dark:border-amber-800 dark:bg-amber-950/40 dark:text-amber-100"
        >
          <p className="font-medium">Copy this token now: it is not shown again.</p>
          <div className="mt-2 flex items-center gap-2">
            <input
              readOnly
              value={created}
              aria-label="New token"
              data-testid="new-token"
              className="min-w-0 flex-1 rounded-md border border-amber-300 bg-white px-2 py-1 font-mono text-xs dark:border-amber-800 dark:bg-zinc-950"
            />
            <CopyButton text={created} label="Copy token" />
          </div>
        </div>
      )}
      {problem && (
        <p role="alert" className="mt-3 text-sm text-rose-700 dark:text-rose-300">
          {problem}
        </p>
      )}
      {tokens.length === 0 ? (
        <p className="mt-6 text-sm text-zinc-600 dark:text-zinc-400">No tokens yet.</p>
      ) : (
        <ul
          className="mt-6 divide-y divide-zinc-200 rounded-xl border border-zinc-200 dark:divide-zinc-800 dark:border-zinc-800"
          data-testid="api-tokens"
        >
          {tokens.map((token) => (
            <li key={token.id} className="flex flex-wrap items-center gap-3 px-4 py-3 text-sm">
              <span className="min-w-0 flex-1 font-medium">{token.name}</span>
              <span className="text-xs text-zinc-600 dark:text-zinc-400">
                created {new Date(token.createdAt).toLocaleDateString()} ·{" "}
                {token.lastUsedAt ? `last used ${new Date(token.lastUsedAt).toLocaleString()}` : "never used"}
              </span>
              <button
                type="button"
                onClick={() => void revoke(token.id)}
                className="rounded-md px-2 py-1 font-medium text-rose-800 hover:bg-rose-50 dark:text-rose-300 dark:hover:bg-rose-950/40"
              >
                Revoke <span className="sr-only">{token.name}</span>
              </button>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
