"use client";

import { startRegistration, type PublicKeyCredentialCreationOptionsJSON } from "@simplewebauthn/browser";
import { useState } from "react";
import { api, problemText, type Passkey } from "@/lib/api/client";
import { Button } from "@/components/ui/Button";
import { Problem } from "@/components/ui/Problem";

/** The account's passkeys: add one (named), remove one; any of them signs in from /signin. */
export function Passkeys({ initial }: { initial: Passkey[] }) {
  const [passkeys, setPasskeys] = useState(initial);
  const [name, setName] = useState("");
  const [problem, setProblem] = useState<string | null>(null);
  const [added, setAdded] = useState<string | null>(null);

  const add = async (event: React.FormEvent) => {
    event.preventDefault();
    setProblem(null);
    setAdded(null);
    try {
      const optionsJSON = (await api.passkeyRegisterOptions()) as unknown as PublicKeyCredentialCreationOptionsJSON;
      const passkey = await api.registerPasskey(await startRegistration({ optionsJSON }), name);
      setPasskeys((list) => [...list, passkey]);
      setAdded(passkey.name);
      setName("");
    } catch (error) {
      setProblem(problemText(error));
    }
  };
  const remove = async (passkey: Passkey) => {
    setProblem(null);
    try {
      await api.removePasskey(passkey.id);
      setPasskeys((list) => list.filter((each) => each.id !== passkey.id));
    } catch (error) {
      setProblem(problemText(error));
    }
  };

  return (
    <section aria-labelledby="passkeys-heading" className="mt-8">
      <h2 id="passkeys-heading" className="text-sm font-medium">
        Passkeys
      </h2>
      <p className="mt-1 text-sm text-zinc-700 dark:text-zinc-300">
        A passkey signs you in on /signin without an email: your device or password manager keeps it.
      </p>
      {passkeys.length > 0 && (
        <ul className="mt-2 divide-y divide-zinc-200 rounded-lg border border-zinc-200 dark:divide-zinc-800 dark:border-zinc-800">
          {passkeys.map((passkey) => (
            <li key={passkey.id} className="flex flex-wrap items-center gap-3 px-3 py-2 text-sm">
              <span className="min-w-0 flex-1">
                {passkey.name}
                <span className="block text-xs text-zinc-600 dark:text-zinc-400">
                  Added {new Date(passkey.createdAt).toLocaleString()}
                  {passkey.lastUsedAt
                    ? `; last used ${new Date(passkey.lastUsedAt).toLocaleString()}`
                    : "; not used yet"}
                </span>
              </span>
              <Button
                variant="secondary"
                size="sm"
                onClick={() => void remove(passkey)}
                aria-label={`Remove ${passkey.name}`}
              >
                Remove
              </Button>
            </li>
          ))}
        </ul>
      )}
      <form onSubmit={(event) => void add(event)} className="mt-3 flex flex-wrap items-end gap-2">
        <label className="text-sm">
          <span className="block">Name of the new passkey</span>
          <input
            value={name}
            onChange={(event) => setName(event.target.value)}
            required
            maxLength={100}
            placeholder="e.g. Work laptop"
            className="mt-1 w-72 max-w-full rounded-md border border-zinc-300 bg-white px-2 py-1.5 dark:border-zinc-700 dark:bg-zinc-900"
          />
        </label>
        <Button type="submit" variant="primary">
          Add a passkey
        </Button>
      </form>
      <p role="status" className="mt-2 text-sm text-zinc-700 dark:text-zinc-300">
        {added && `Added ${added}: it signs you in from now on.`}
      </p>
      <Problem text={problem} />
    </section>
  );
}
