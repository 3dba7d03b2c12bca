import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { apiRoutes } from "@/lib/contract/routes";
import { Api, ofType } from "../support/api";
import { scriptedApp, type AppServer } from "../support/app-server";
import { checkedOperations } from "../support/contract";
import { seedSignedIn } from "../support/accounts";
import { freshDatabaseUrl } from "../support/database";
import { Mailbox, signInLink } from "../support/mailbox";
import { SoftAuthenticator } from "../support/webauthn";
import { ModelServer } from "../support/model-server";
import { uploaded } from "../support/files";
import { readSse } from "../support/sse";

/*
 * Every route of the contract (lib/contract/routes.ts), called once through the real server: Api checks each
 * answer against the schema of its status, and each event against the event contract. The last test makes sure
 * no documented route was left out, so a new route comes with a schema and a call here.
 */

const model = new ModelServer();
let app: AppServer;
let api: Api;

const TOOL = {
  name: "word_count",
  description: "Count the words of a text.",
  parameters_schema: { type: "object", properties: { text: { type: "string" } }, required: ["text"] },
  code: "function run({ text }) { return text.split(/\\s+/).filter(Boolean).length; }",
};

beforeAll(async () => {
  await model.start();
  app = scriptedApp(model.url);
  await app.start();
  api = new Api(app.url);
});
afterAll(async () => {
  await app?.stop();
  await model.stop();
});

const call = (method: string, path: string, body?: unknown) =>
  api.fetch(path, {
    method,
    headers: body === undefined ? {} : { "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
const status = async (method: string, path: string, body?: unknown) => (await call(method, path, body)).status;

describe("the API contract", () => {
  it("answers every route as its schema says", async () => {
    expect(await status("GET", "/api/health")).toBe(200);
    expect(await status("GET", "/api/openapi.json")).toBe(200);
    expect(await status("GET", "/api/profiles")).toBe(200);

    const { id } = await api.createConversation();
    model.script("Count the words of 'one two three'.", [
      { toolCalls: [{ name: "register_tool", args: TOOL }] },
      { toolCalls: [{ name: "word_count", args: { text: "one two three" } }] },
      { text: "Three words." },
    ]);
    const events = await api.run(id, "Count the words of 'one two three'.");
    expect(ofType(events, "run_finished")).toEqual([expect.objectContaining({ status: "completed" })]);
    expect(await status("GET", "/api/conversations")).toBe(200);
    expect(await status("GET", `/api/conversations/${id}`)).toBe(200);
    expect(await status("PATCH", `/api/conversations/${id}`, { title: "Words" })).toBe(200);
    expect((await readSse(await api.events(id))).length).toBe(events.length);
    expect(await status("GET", `/api/conversations/${id}/export?format=json`)).toBe(200);
    expect(await status("GET", `/api/conversations/${id}/runs/${events[0].data.runId}/otlp`)).toBe(200);
    expect(await status("GET", `/api/conversations/${id}/runs/none/otlp`)).toBe(404);
    expect(await status("POST", `/api/conversations/${id}/runs/${events[0].data.runId}/rerun`, { plan: true })).toBe(
      201,
    );
    expect(await status("POST", `/api/conversations/${id}/cancel`)).toBe(409);
    expect(await status("POST", `/api/conversations/${id}/approvals/none`, { approved: true })).toBe(409);

    expect(await status("GET", `/api/conversations/${id}/share`)).toBe(404);
    const link = await (await call("POST", `/api/conversations/${id}/share`)).json();
    expect(await status("GET", `/api/conversations/${id}/share`)).toBe(200);
    expect(await status("GET", "/api/shares")).toBe(200);
    expect(await status("GET", `/api/share/${link.token}`)).toBe(200);
    expect((await readSse(await api.fetch(`/api/share/${link.token}/events`))).length).toBe(events.length);
    expect(await status("GET", `/api/share/${link.token}/export?format=md`)).toBe(200);
    expect(await status("POST", `/api/share/${link.token}/fork`)).toBe(201);
    const [file] = await uploaded(api, id, [["notes.txt", "words"]]);
    expect(await status("GET", `/api/conversations/${id}/files`)).toBe(200);
    expect(await status("GET", file.url)).toBe(200);
    expect(await status("GET", `/api/share/${link.token}/files/${file.id}`)).toBe(200);
    expect(await status("DELETE", file.url)).toBe(204);
    const [step] = events.filter(({ data }) => data.type === "step_started");
    for (const base of [`/api/conversations/${id}`, `/api/share/${link.token}`]) {
      const annotation = await (await call("POST", `${base}/annotations`, { eventId: step.id, label: "good" })).json();
      expect(await status("DELETE", `${base}/annotations/${annotation.id}`)).toBe(204);
      expect(await status("POST", `${base}/verdicts`, { runId: step.data.runId, verdict: "up" })).toBe(201);
    }
    expect(await status("PUT", "/api/display-name", { name: "Contract" })).toBe(200);
    expect(await status("GET", "/api/display-name")).toBe(200);
    expect(await status("POST", `/api/conversations/${id}/fork`, { eventId: events[1].id })).toBe(201);
    expect(await status("DELETE", `/api/conversations/${id}/share`)).toBe(204);

    const tool = await (await call("POST", "/api/tools", { ...TOOL, name: "word_total" })).json();
    expect(
      await status("POST", "/api/tools", { ...TOOL, name: "bad", code: "function run() { return eval('1'); }" }),
    ).toBe(422);
    expect(await status("GET", "/api/tools?scope=library")).toBe(200);
    expect(await status("GET", "/api/tools/search?q=words")).toBe(200);
    expect(await status("GET", "/api/tools/stats")).toBe(200);
    expect(await status("POST", `/api/tools/${tool.id}/execute`, { input: { text: "a b" } })).toBe(200);
    expect(await status("POST", `/api/tools/${tool.id}/execute`, { input: { text: 1 } })).toBe(400);
    expect(await status("GET", `/api/tools/${tool.id}`)).toBe(200);
    expect(await status("GET", `/api/tools/${tool.id}/versions`)).toBe(200);
    expect(await status("GET", `/api/tools/${tool.id}/executions`)).toBe(200);
    const [execution] = (await (await call("GET", `/api/tools/${tool.id}/executions`)).json()).executions;
    expect(await status("POST", `/api/tools/${tool.id}/examples`, { executionId: execution.id })).toBe(201);
    expect(await status("POST", `/api/tools/${tool.id}/test`)).toBe(200);

    const description = "Count the words of a text, written for you.";
    model.script(description, [{ toolCalls: [{ name: "write_tool", args: { ...TOOL, examples: [] } }] }]);
    model.script("Count the words, done right.", [
      {
        toolCalls: [
          {
            name: "write_tool",
            args: { ...TOOL, name: "words_right", examples: [{ input: { text: "a" }, expected_output: 1 }] },
          },
        ],
      },
    ]);
    expect(await status("POST", "/api/tools/generate", { description })).toBe(200);
    expect(await status("POST", "/api/tools", { description: "Count the words, done right." })).toBe(201);
    expect(await status("PATCH", `/api/tools/${tool.id}`, { status: "deprecated" })).toBe(200);
    expect(await status("GET", "/api/audit")).toBe(200);
    expect(await status("GET", "/api/audit/export?format=jsonl")).toBe(200);
    expect(await status("DELETE", `/api/tools/${tool.id}`)).toBe(204);

    // Adding connects to it; a host under .internal is refused before any lookup, so nothing is dialled.
    const server = await (
      await call("POST", "/api/mcp-servers", {
        name: "tickets",
        url: "https://tickets.example.internal/mcp",
        bearerToken: "t",
      })
    ).json();
    expect(server.status.state).toBe("failed");
    expect(await status("POST", "/api/mcp-servers", { name: "shell", command: "bash" })).toBe(400);
    expect(
      await status("POST", "/api/mcp-servers", { name: "tickets", url: "https://tickets.example.internal/mcp" }),
    ).toBe(409);
    expect(await status("GET", "/api/mcp-servers")).toBe(200);
    expect(await status("POST", `/api/mcp-servers/${server.id}/refresh`)).toBe(200);
    expect(await status("DELETE", `/api/mcp-servers/${server.id}`)).toBe(204);
    expect(await status("DELETE", `/api/mcp-servers/${server.id}`)).toBe(404);
    expect(await status("POST", `/api/mcp-servers/${server.id}/refresh`)).toBe(404);

    const secret = { name: "CONTRACT_KEY", value: "contract-secret-value", hosts: ["api.example.com"] };
    expect(await status("POST", "/api/secrets", secret)).toBe(201);
    expect(await status("POST", "/api/secrets", { ...secret, hosts: ["*.example.com"] })).toBe(200);
    expect(await status("POST", "/api/secrets", { ...secret, name: "contract_key" })).toBe(400);
    expect(await status("GET", "/api/secrets")).toBe(200);
    const keyed = { ...TOOL, name: "keyed_words", secrets: ["CONTRACT_KEY"] };
    expect(await status("POST", "/api/tools", keyed)).toBe(201);
    expect(await status("DELETE", "/api/secrets/CONTRACT_KEY")).toBe(204);
    expect(await status("DELETE", "/api/secrets/CONTRACT_KEY")).toBe(404);
    // Without the secret, a tool naming it is refused.
    expect(await status("POST", "/api/tools", { ...keyed, name: "keyed_again" })).toBe(422);

    const token = await (await call("POST", "/api/tokens", { name: "ci" })).json();
    expect(await status("GET", "/api/tokens")).toBe(200);
    const mcp = (headers: Record<string, string>) =>
      fetch(`${app.url}/api/mcp`, {
        method: "POST",
        headers: { "content-type": "application/json", accept: "application/json, text/event-stream", ...headers },
        body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "ping" }),
      });
    expect((await mcp({ authorization: `Bearer ${token.token}` })).status).toBe(200);
    expect((await mcp({})).status).toBe(401);
    const seat = (method: string, path: string, body?: unknown) =>
      fetch(`${app.url}/seat${path}`, {
        method,
        headers: { authorization: `Bearer ${token.token}`, "content-type": "application/json" },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
    const seatStatus = async (method: string, path: string, body?: unknown) => (await seat(method, path, body)).status;
    model.script("Count the words, SEAT's way.", [
      {
        toolCalls: [
          {
            name: "write_tool",
            args: {
              ...TOOL,
              name: "seat_words",
              code: 'def run(inputs):\n    return len(inputs["text"].split())',
              examples: [{ input: { text: "a b" }, expected_output: 2 }],
            },
          },
        ],
      },
    ]);
    expect(await seatStatus("GET", "")).toBe(200);
    expect(await seatStatus("GET", "/health")).toBe(200);
    const seatTool = await (await seat("POST", "/tools", { description: "Count the words, SEAT's way." })).json();
    expect(await seatStatus("POST", "/tools", {})).toBe(422);
    expect(await seatStatus("GET", "/tools?status=active")).toBe(200);
    expect(await seatStatus("GET", "/tools/search?q=words")).toBe(200);
    expect(await seatStatus("GET", `/tools/${seatTool.id}`)).toBe(200);
    expect(await seatStatus("POST", `/tools/${seatTool.id}/execute`, { input_data: { text: "a b c" } })).toBe(200);
    expect(await seatStatus("DELETE", `/tools/${seatTool.id}`)).toBe(204);
    expect(await status("DELETE", `/api/tokens/${token.id}`)).toBe(204);
    expect(await status("DELETE", `/api/conversations/${id}`)).toBe(204);
    expect(await status("GET", `/api/conversations/${id}`)).toBe(404);
    // The admin's routes are not there for anyone else (tests/integration/admin.test.ts calls them as an admin).
    expect(await status("GET", "/api/admin/accounts")).toBe(404);
    expect(await status("PUT", `/api/admin/accounts/${id}/profiles`, { profiles: null })).toBe(404);
    // tests/integration/mcp-admin.test.ts calls these as an admin.
    expect(await status("GET", "/api/admin/mcp-servers")).toBe(404);
    expect(await status("POST", "/api/admin/mcp-servers", { name: "x", url: "https://x.example.com/mcp" })).toBe(404);
    expect(await status("DELETE", `/api/admin/mcp-servers/${id}`)).toBe(404);
    expect(await status("POST", `/api/admin/mcp-servers/${id}/refresh`)).toBe(404);
    // tests/integration/secrets.test.ts calls these as an admin.
    expect(await status("GET", "/api/admin/secrets")).toBe(404);
    expect(
      await status("POST", "/api/admin/secrets", { name: "X_KEY", value: "x-secret-value", hosts: ["x.example.com"] }),
    ).toBe(404);
    expect(await status("DELETE", "/api/admin/secrets/X_KEY")).toBe(404);
  });

  it("answers the account routes as their schemas say", async () => {
    const mailbox = new Mailbox();
    await mailbox.start();
    const databaseUrl = freshDatabaseUrl();
    const accounts = scriptedApp(model.url, { TOOLSMITH_AUTH: "optional", SMTP_URL: mailbox.url }, databaseUrl);
    await accounts.start();
    try {
      const browser = new Api(accounts.url);
      const send = (method: string, path: string, body?: unknown) =>
        browser.fetch(path, {
          method,
          headers: body === undefined ? {} : { "content-type": "application/json" },
          body: body === undefined ? undefined : JSON.stringify(body),
        });
      expect((await send("POST", "/api/auth/email", { email: "ivy@example.com" })).status).toBe(202);
      const token = signInLink(await mailbox.next("ivy@example.com")).searchParams.get("token");
      expect((await send("POST", "/api/auth/email/verify", { token })).status).toBe(200);
      expect((await send("GET", "/api/account")).status).toBe(200);
      expect((await send("GET", "/api/account/export")).status).toBe(200);
      const other = await seedSignedIn(databaseUrl, "ivy@example.com");
      const sessions = await (await send("GET", "/api/account/sessions")).json();
      expect(sessions).toHaveLength(2);
      expect((await send("DELETE", `/api/account/sessions/${other.sessionId}`)).status).toBe(204);
      const authenticator = new SoftAuthenticator(accounts.url);
      const creation = await (await send("POST", "/api/auth/passkey/register/options")).json();
      const response = authenticator.create(creation);
      expect((await send("POST", "/api/auth/passkey/register", { response, name: "Laptop" })).status).toBe(201);
      expect((await send("GET", "/api/account/passkeys")).status).toBe(200);
      expect((await send("PATCH", `/api/account/passkeys/${response.id}`, { name: "Work laptop" })).status).toBe(200);
      const request = await (await send("POST", "/api/auth/passkey/signin/options")).json();
      expect(
        (await send("POST", "/api/auth/passkey/signin", { response: authenticator.get(request, response.id) })).status,
      ).toBe(200);
      expect((await send("DELETE", `/api/account/passkeys/${response.id}`)).status).toBe(204);
      // Single sign-on is not configured here: both of its routes say so.
      expect((await send("GET", "/api/auth/signin/oidc")).status).toBe(404);
      expect((await send("GET", "/api/auth/callback/oidc")).status).toBe(404);
      expect((await send("DELETE", "/api/account", { confirm: "ivy@example.com" })).status).toBe(204);
      expect((await send("POST", "/api/auth/signout", {})).status).toBe(204);
    } finally {
      await accounts.stop();
      await mailbox.stop();
    }
  });

  it("has called every documented route", () => {
    const documented = Object.entries(apiRoutes).flatMap(([path, operations]) =>
      Object.keys(operations ?? {}).map((method) => `${method.toUpperCase()} ${path}`),
    );
    expect(documented.filter((operation) => !checkedOperations.has(operation))).toEqual([]);
  });
});
