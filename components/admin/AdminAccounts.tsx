"use client";

import { ShieldCheck } from "lucide-react";
import Link from "next/link";
import { useState } from "react";
import { api, problemText } from "@/lib/api/client";
import type { AdminAccount } from "@/lib/contract/responses";
import { Button } from "@/components/ui/Button";
import { PageTitle } from "@/components/ui/PageTitle";

/** Every account, each with the agent profiles it may use (every one, or those ticked), and the whole audit log. */
export function AdminAccounts({ initial, profiles }: { initial: AdminAccount[]; profiles: string[] }) {
  return (
    <section aria-labelledby="admin-accounts">
      <PageTitle icon={ShieldCheck} title="Admin">
        The accounts of this server and the agent profiles each may use.{" "}
        <Link href="/audit?all=1" className="text-sky-700 underline dark:text-sky-400">
          The audit log of all accounts
        </Link>
      </PageTitle>
      <h2 id="admin-accounts" className="mt-6 text-base font-semibold">
        Accounts
      </h2>
      {initial.length === 0 ? (
        <p className="mt-3 text-sm text-zinc-600 dark:text-zinc-400">No account yet.</p>
      ) : (
        <ul className="mt-3 space-y-3" data-testid="admin-accounts">
          {initial.map((account) => (
            <AccountProfiles key={account.id} account={account} profiles={profiles} />
          ))}
        </ul>
      )}
    </section>
  );
}

function AccountProfiles({ account, profiles }: { account: AdminAccount; profiles: string[] }) {
  const [every, setEvery] = useState(account.profiles === null);
  const [chosen, setChosen] = useState(new Set(account.profiles ?? profiles));
  const [status, setStatus] = useState<string | null>(null);
  const [problem, setProblem] = useState<string | null>(null);
  const id = `account-${account.id}`;
  const save = async () => {
    setStatus(null);
    setProblem(null);
    try {
      await api.setAccountProfiles(account.id, every ? null : profiles.filter((name) => chosen.has(name)));
      setStatus("Saved.");
    } catch (error) {
      setProblem(problemText(error));
    }
  };
  return (
    <li className="rounded-xl border border-zinc-200 p-4 dark:border-zinc-800">
      <form
        onSubmit={(event) => {
          event.preventDefault();
          void save();
        }}
      >
        <fieldset aria-describedby={`${id}-help`}>
          <legend className="font-medium break-all">{account.email}</legend>
          <p id={`${id}-help`} className="text-xs text-zinc-600 dark:text-zinc-400">
            Since {new Date(account.createdAt).toLocaleDateString()}. The agent profiles this account may use.
          </p>
          <label className="mt-2 flex items-center gap-2 text-sm">
            <input type="checkbox" checked={every} onChange={(event) => setEvery(event.target.checked)} />
            Every profile
          </label>
          <div className="mt-1 flex flex-wrap gap-x-4 gap-y-1 pl-6">
            {profiles.map((name) => (
              <label key={name} className="flex items-center gap-2 text-sm">
                <input
                  type="checkbox"
                  disabled={every}
                  checked={every || chosen.has(name)}
                  onChange={(event) => {
                    const next = new Set(chosen);
                    if (event.target.checked) next.add(name);
                    else next.delete(name);
                    setChosen(next);
                  }}
                />
                {name}
              </label>
            ))}
          </div>
        </fieldset>
        <div className="mt-3 flex items-center gap-3">
          <Button type="submit" variant="primary">
            Save profiles
          </Button>
          <span role="status" className="text-sm text-emerald-800 dark:text-emerald-300">
            {status}
          </span>
        </div>
        {problem && (
          <p role="alert" className="mt-2 text-sm text-rose-700 dark:text-rose-300">
            {problem}
          </p>
        )}
      </form>
    </li>
  );
}
