"use client";

import { Plus, RefreshCw, Server, X } from "lucide-react";
import { useId, useRef, useState, type FormEvent } from "react";
import { api, problemText, type McpServer } from "@/lib/api/client";
import { Button } from "@/components/ui/Button";
import { FormOutcome } from "@/components/ui/Problem";

const FIELD =
  "mt-1 block w-full rounded-md border border-zinc-300 bg-white px-2 py-1.5 dark:border-zinc-700 dark:bg-zinc-900";

type HeaderRow = { key: number; name: string; value: string };

/**
 * The MCP servers the agent may use: the person's own (added by URL, with a bearer token or headers that are stored
 * sealed and never shown again; removable), an admin's for everyone and the profiles file's (read-only). A server's
 * status and tools show when the answer carries them (the MCP client layer fills them): adding one connects to it,
 * and Refresh connects again. With `forEveryone`, the admin's page: the servers for everyone, added, refreshed and
 * removed through the admin's routes.
 */
export function McpServers({ initial, forEveryone = false }: { initial: McpServer[]; forEveryone?: boolean }) {
  const [servers, setServers] = useState(initial);
  const [name, setName] = useState("");
  const [url, setUrl] = useState("");
  const [token, setToken] = useState("");
  const [headers, setHeaders] = useState<HeaderRow[]>([]);
  const [nextKey, setNextKey] = useState(0);
  const [status, setStatus] = useState("");
  const [problem, setProblem] = useState<string | null>(null);
  const [adding, setAdding] = useState(false);
  /** The ids of the servers being refreshed. */
  const [refreshing, setRefreshing] = useState<ReadonlySet<string>>(new Set());
  const titleId = useId();
  const title = useRef<HTMLHeadingElement>(null);
  const addHeaderButton = useRef<HTMLButtonElement>(null);
  /** The header row just added, whose name field takes the focus once it is there. */
  const added = useRef<number | null>(null);

  const add = async (event: FormEvent) => {
    event.preventDefault();
    if (adding) return;
    setProblem(null);
    setAdding(true);
    setStatus(`Adding ${name.trim()} and connecting to it…`);
    try {
      const named = headers.filter((header) => header.name.trim() !== "");
      const server = await api.addMcpServer(
        {
          name: name.trim(),
          url: url.trim(),
          ...(token && { bearerToken: token }),
          ...(named.length && {
            headers: Object.fromEntries(named.map((header) => [header.name.trim(), header.value])),
          }),
        },
        forEveryone,
      );
      setServers((list) => [...list, server]);
      setStatus(`Added ${server.name}. ${connectionSummary(server)}`);
      setName("");
      setUrl("");
      setToken("");
      setHeaders([]);
    } catch (error) {
      setStatus("");
      setProblem(problemText(error));
    } finally {
      setAdding(false);
    }
  };
  const refresh = async (server: McpServer) => {
    const id = server.id!;
    if (refreshing.has(id)) return;
    setProblem(null);
    setRefreshing((ids) => new Set(ids).add(id));
    setStatus(`Refreshing ${server.name}…`);
    try {
      const refreshed = await api.refreshMcpServer(id, forEveryone);
      setServers((list) => list.map((other) => (other.id === id ? refreshed : other)));
      setStatus(`Refreshed ${server.name}. ${connectionSummary(refreshed)}`);
    } catch (error) {
      setStatus("");
      setProblem(problemText(error));
    } finally {
      setRefreshing((ids) => new Set([...ids].filter((other) => other !== id)));
    }
  };
  const remove = async (server: McpServer) => {
    setProblem(null);
    try {
      await api.removeMcpServer(server.id!, forEveryone);
      setServers((list) => list.filter((other) => other.id !== server.id));
      setStatus(`Removed ${server.name}.`);
      // Its button is gone: the focus goes to the section rather than to the page's start.
      title.current?.focus();
    } catch (error) {
      setProblem(problemText(error));
    }
  };
  const addHeader = () => {
    added.current = nextKey;
    setHeaders((rows) => [...rows, { key: nextKey, name: "", value: "" }]);
    setNextKey((key) => key + 1);
  };
  const changeHeader = (key: number, change: Partial<HeaderRow>) =>
    setHeaders((rows) => rows.map((row) => (row.key === key ? { ...row, ...change } : row)));

  return (
    <section aria-labelledby={titleId} className="mt-10">
      <h2
        id={titleId}
        ref={title}
        tabIndex={-1}
        className="flex items-center gap-2 text-lg font-semibold text-zinc-900 outline-none dark:text-zinc-50"
      >
        <Server className="size-5 text-emerald-700 dark:text-emerald-400" aria-hidden />{" "}
        {forEveryone ? "MCP servers for everyone" : "MCP servers"}
      </h2>
      <p className="mt-1 text-sm text-zinc-600 dark:text-zinc-400">
        {forEveryone
          ? "Every person's agent can use the tools of the Model Context Protocol servers you connect here, in each profile that takes servers connected through the API; a person's own server of the same name stays theirs. "
          : "The agent can use the tools of Model Context Protocol servers you connect here, "}
        over Streamable HTTP, as <code className="font-mono">server__tool</code>. A token or header values are stored
        encrypted and never shown again. Servers started as programs (stdio) are set up by this server&rsquo;s operator
        in the profiles file.
      </p>

      {servers.length === 0 ? (
        <p className="mt-4 text-sm text-zinc-600 dark:text-zinc-400">No MCP servers yet.</p>
      ) : (
        <ul
          className="mt-4 divide-y divide-zinc-200 rounded-xl border border-zinc-200 dark:divide-zinc-800 dark:border-zinc-800"
          data-testid="mcp-servers"
        >
          {servers.map((server) => (
            <McpServerItem
              key={`${server.source}:${server.name}`}
              server={server}
              removable={server.source === (forEveryone ? "everyone" : "personal") && server.id !== null}
              refreshing={server.id !== null && refreshing.has(server.id)}
              onRefresh={refresh}
              onRemove={remove}
            />
          ))}
        </ul>
      )}

      <form onSubmit={(event) => void add(event)} className="mt-4 grid max-w-2xl gap-3 sm:grid-cols-2">
        <label className="text-sm">
          <span className="block font-medium">Server name</span>
          <input
            value={name}
            onChange={(event) => setName(event.target.value)}
            required
            maxLength={32}
            pattern="[a-z0-9_\-]+"
            title="Lower-case letters, digits, _ and -"
            placeholder="e.g. tickets"
            className={FIELD}
          />
        </label>
        <label className="text-sm">
          <span className="block font-medium">Server URL</span>
          <input
            type="url"
            value={url}
            onChange={(event) => setUrl(event.target.value)}
            required
            placeholder="https://mcp.example.com/mcp"
            className={FIELD}
          />
        </label>
        <label className="text-sm sm:col-span-2">
          <span className="block font-medium">Bearer token (optional)</span>
          <input
            type="password"
            autoComplete="off"
            value={token}
            onChange={(event) => setToken(event.target.value)}
            className={FIELD}
          />
        </label>
        <fieldset className="text-sm sm:col-span-2">
          <legend className="font-medium">Headers (optional)</legend>
          {headers.map((header, index) => (
            <div key={header.key} className="mt-2 flex flex-wrap items-end gap-2">
              <label className="min-w-0 flex-1">
                <span className="block text-xs text-zinc-600 dark:text-zinc-400">Header {index + 1} name</span>
                <input
                  ref={(element) => {
                    if (element && added.current === header.key) {
                      added.current = null;
                      element.focus();
                    }
                  }}
                  value={header.name}
                  onChange={(event) => changeHeader(header.key, { name: event.target.value })}
                  placeholder="X-Api-Key"
                  className={FIELD}
                />
              </label>
              <label className="min-w-0 flex-1">
                <span className="block text-xs text-zinc-600 dark:text-zinc-400">Header {index + 1} value</span>
                <input
                  type="password"
                  autoComplete="off"
                  value={header.value}
                  onChange={(event) => changeHeader(header.key, { value: event.target.value })}
                  className={FIELD}
                />
              </label>
              <Button
                variant="quiet"
                size="icon"
                aria-label={`Remove header ${index + 1}`}
                onClick={() => {
                  setHeaders((rows) => rows.filter((row) => row.key !== header.key));
                  addHeaderButton.current?.focus();
                }}
                className="mb-1"
              >
                <X className="size-4" aria-hidden />
              </Button>
            </div>
          ))}
          <Button ref={addHeaderButton} size="sm" onClick={addHeader} className="mt-2">
            <Plus className="size-3.5" aria-hidden /> Add a header
          </Button>
        </fieldset>
        <div className="sm:col-span-2">
          {/* aria-disabled rather than disabled: the button keeps the focus while the server is connected to. */}
          <Button type="submit" variant="primary" aria-disabled={adding || undefined}>
            {adding ? "Adding…" : "Add server"}
          </Button>
        </div>
      </form>
      <FormOutcome problem={problem} status={status} />
    </section>
  );
}

const SOURCE_WORDS = { file: "profiles file, read-only", everyone: "for everyone, read-only", personal: "yours" };

/** What a status line announces of a server's connection once it was added or refreshed. */
function connectionSummary(server: McpServer): string {
  if (server.status?.state === "connected") return `Connected, ${server.tools?.length ?? 0} tools.`;
  return `It could not connect${server.status?.message ? `: ${server.status.message}` : "."}`;
}

function McpServerItem({
  server,
  removable,
  refreshing,
  onRefresh,
  onRemove,
}: {
  server: McpServer;
  /** Yours to refresh and remove (on the admin's page, everyone's). */
  removable: boolean;
  refreshing: boolean;
  onRefresh: (server: McpServer) => Promise<void>;
  onRemove: (server: McpServer) => Promise<void>;
}) {
  const credentials = [...(server.bearer ? ["a bearer token"] : []), ...server.headerNames];
  return (
    <li className="flex flex-wrap items-start gap-3 px-4 py-3 text-sm" data-testid="mcp-server">
      <div className="min-w-0 flex-1">
        <p className="flex flex-wrap items-center gap-2">
          <span className="font-mono font-medium">{server.name}</span>
          <span className="rounded bg-zinc-100 px-1.5 py-0.5 text-xs text-zinc-700 dark:bg-zinc-800 dark:text-zinc-300">
            {removable && server.source === "everyone" ? "for everyone" : SOURCE_WORDS[server.source]}
          </span>
        </p>
        <p className="mt-0.5 break-all text-zinc-700 dark:text-zinc-300">
          {server.url ?? "a program the operator runs (stdio)"}
        </p>
        {credentials.length > 0 && (
          <p className="mt-0.5 text-xs text-zinc-600 dark:text-zinc-400">Sends {credentials.join(", ")}</p>
        )}
        <McpServerStatus server={server} refreshable={removable} />
      </div>
      {removable && (
        <div className="flex gap-1">
          {/* aria-disabled rather than disabled while it works, so that the focus stays on it. */}
          <Button variant="quiet" onClick={() => void onRefresh(server)} aria-disabled={refreshing || undefined}>
            <RefreshCw className={`size-3.5 ${refreshing ? "animate-spin" : ""}`} aria-hidden /> Refresh{" "}
            <span className="sr-only">{server.name}</span>
          </Button>
          <Button variant="quiet" onClick={() => void onRemove(server)} className="text-rose-800 dark:text-rose-300">
            Remove <span className="sr-only">{server.name}</span>
          </Button>
        </div>
      )}
    </li>
  );
}

const STATE_WORDS = {
  idle: "Not connected yet: a run connects it when it first uses it",
  connecting: "Connecting",
  connected: "Connected",
  failed: "Could not connect",
} as const;

/** This instance's connection to the server, and the tools it listed last. */
function McpServerStatus({ server, refreshable }: { server: McpServer; refreshable: boolean }) {
  if (!server.status) return null;
  const { state } = server.status;
  return (
    <div className="mt-1 text-xs text-zinc-700 dark:text-zinc-300" data-testid="mcp-server-status">
      <p className={state === "failed" ? "text-rose-700 dark:text-rose-300" : undefined}>
        {state === "idle" && refreshable ? "Not connected yet: Refresh connects it" : STATE_WORDS[state]}
        {server.status.message ? `: ${server.status.message}` : ""}
      </p>
      {server.tools && (
        <p>
          {server.tools.length} tools
          {server.tools.length > 0 && `: ${server.tools.map((tool) => tool.name).join(", ")}`}
        </p>
      )}
    </div>
  );
}
