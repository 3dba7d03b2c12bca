"use client";

import { LockKeyhole } from "lucide-react";
import { useId, useRef, useState, type FormEvent } from "react";
import { api, problemText, type Secret } from "@/lib/api/client";
import { Button } from "@/components/ui/Button";
import { FormOutcome } from "@/components/ui/Problem";

const FIELD =
  "mt-1 block w-full rounded-md border border-zinc-300 bg-white px-2 py-1.5 dark:border-zinc-700 dark:bg-zinc-900";

/** Hosts as a person types them: separated by commas or spaces. */
const hostsOf = (text: string) => text.split(/[\s,]+/).filter(Boolean);

/**
 * The secrets (API keys) the agent's tools may use by name: a person's own (kept with the hosts the value may be
 * sent to; removable, never shown again) and an admin's for everyone (read-only). With `forEveryone`, the admin's
 * page: the secrets for everyone, kept and removed through the admin's routes.
 */
export function Secrets({ initial, forEveryone = false }: { initial: Secret[]; forEveryone?: boolean }) {
  const [secrets, setSecrets] = useState(initial);
  const [name, setName] = useState("");
  const [hosts, setHosts] = useState("");
  const [status, setStatus] = useState("");
  const [problem, setProblem] = useState<string | null>(null);
  const titleId = useId();
  const title = useRef<HTMLHeadingElement>(null);
  // Not React state: a controlled field would write the value into a `value` attribute, readable in the markup.
  const valueField = useRef<HTMLInputElement>(null);
  const own = forEveryone ? "everyone" : "personal";

  const keep = async (event: FormEvent) => {
    event.preventDefault();
    setProblem(null);
    try {
      const value = valueField.current?.value ?? "";
      const secret = await api.keepSecret({ name: name.trim(), value, hosts: hostsOf(hosts) }, forEveryone);
      // Yours of a name hides everyone's of it, as in runs.
      setSecrets((list) => [...list.filter((other) => other.name !== secret.name), secret]);
      setStatus(`Saved ${secret.name}.`);
      setName("");
      if (valueField.current) valueField.current.value = "";
      setHosts("");
    } catch (error) {
      setProblem(problemText(error));
    }
  };
  const remove = async (secret: Secret) => {
    setProblem(null);
    try {
      await api.removeSecret(secret.name, forEveryone);
      setSecrets((list) => list.filter((other) => other !== secret));
      setStatus(`Removed ${secret.name}.`);
      // Its button is gone: the focus goes to the section rather than to the page's start.
      title.current?.focus();
    } catch (error) {
      setProblem(problemText(error));
    }
  };

  return (
    <section aria-labelledby={titleId} className="mt-10" id="secrets">
      <h2
        id={titleId}
        ref={title}
        tabIndex={-1}
        className="flex items-center gap-2 text-lg font-semibold text-zinc-900 outline-none dark:text-zinc-50"
      >
        <LockKeyhole className="size-5 text-emerald-700 dark:text-emerald-400" aria-hidden />{" "}
        {forEveryone ? "Secrets for everyone" : "Secrets"}
      </h2>
      <p className="mt-1 max-w-3xl text-sm text-zinc-600 dark:text-zinc-400">
        {forEveryone
          ? "Every person's tools can use the API keys you keep here by name; a person's own secret of the same name stays theirs. "
          : "API keys your tools use by name, so you never paste one into the chat. "}
        A tool&rsquo;s code reads <code className="font-mono">secrets.WEATHER_KEY</code> and gets a placeholder; only a
        request to one of the hosts you list (or their subdomains) carries the value, and a reply shows it as{" "}
        <code className="font-mono">[secret WEATHER_KEY]</code>. Values are stored encrypted and never shown again, to
        you, the agent or anyone you share a conversation with.
      </p>

      {secrets.length === 0 ? (
        <p className="mt-4 text-sm text-zinc-600 dark:text-zinc-400">No secrets yet.</p>
      ) : (
        <ul
          className="mt-4 divide-y divide-zinc-200 rounded-xl border border-zinc-200 dark:divide-zinc-800 dark:border-zinc-800"
          data-testid="secrets"
        >
          {secrets.map((secret) => (
            <li
              key={`${secret.source}:${secret.name}`}
              className="flex flex-wrap items-start gap-3 px-4 py-3 text-sm"
              data-testid="secret"
            >
              <div className="min-w-0 flex-1">
                <p className="flex flex-wrap items-center gap-2">
                  <span className="font-mono font-medium">{secret.name}</span>
                  <span className="rounded bg-zinc-100 px-1.5 py-0.5 text-xs text-zinc-700 dark:bg-zinc-800 dark:text-zinc-300">
                    {secret.source === own ? (forEveryone ? "for everyone" : "yours") : "for everyone, read-only"}
                  </span>
                </p>
                <p className="mt-0.5 break-all text-zinc-700 dark:text-zinc-300">
                  Sent only to {secret.hosts.join(", ")}
                </p>
                <p className="mt-0.5 text-xs text-zinc-600 dark:text-zinc-400">
                  {secret.lastUsedAt ? `Last used ${new Date(secret.lastUsedAt).toLocaleString()}` : "Never used"}
                </p>
              </div>
              {secret.source === own && (
                <Button
                  variant="quiet"
                  onClick={() => void remove(secret)}
                  className="text-rose-800 dark:text-rose-300"
                >
                  Remove <span className="sr-only">{secret.name}</span>
                </Button>
              )}
            </li>
          ))}
        </ul>
      )}

      <form onSubmit={(event) => void keep(event)} className="mt-4 grid max-w-2xl gap-3 sm:grid-cols-2">
        <label className="text-sm">
          <span className="block font-medium">Secret name</span>
          <input
            value={name}
            onChange={(event) => setName(event.target.value.toUpperCase())}
            required
            maxLength={64}
            pattern="[A-Z_][A-Z0-9_]*"
            title="Capital letters, digits and _, as an environment variable"
            placeholder="WEATHER_KEY"
            autoComplete="off"
            className={`${FIELD} font-mono`}
          />
        </label>
        <label className="text-sm">
          <span className="block font-medium">Secret value</span>
          <input ref={valueField} type="password" autoComplete="off" required minLength={8} className={FIELD} />
        </label>
        <label className="text-sm sm:col-span-2">
          <span className="block font-medium">Hosts it may be sent to</span>
          <input
            value={hosts}
            onChange={(event) => setHosts(event.target.value)}
            required
            placeholder="api.openweathermap.org"
            aria-describedby={`${titleId}-hosts`}
            className={FIELD}
          />
          <span id={`${titleId}-hosts`} className="mt-1 block text-xs text-zinc-600 dark:text-zinc-400">
            Host names separated by commas; each covers its subdomains. Saving a name you have replaces it.
          </span>
        </label>
        <div className="sm:col-span-2">
          <Button type="submit" variant="primary">
            Save secret
          </Button>
        </div>
      </form>
      <FormOutcome problem={problem} status={status} />
    </section>
  );
}
