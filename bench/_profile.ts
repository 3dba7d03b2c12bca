import { spawn } from "node:child_process";
import { Api, sendJson } from "../tests/support/api";
import { scriptedApp, freePort } from "../tests/support/app-server";
import { prepareDatabase } from "../tests/support/database";

const which = process.argv[2] ?? "execute";
const app = scriptedApp("http://127.0.0.1:9/v1") as unknown as { env: Record<string, string> };
const env = { ...process.env, NEXT_TELEMETRY_DISABLED: "1", ...app.env };
await prepareDatabase(env.DATABASE_URL!, env);
const port = await freePort();
const child = spawn(process.execPath, ["--cpu-prof", "--cpu-prof-dir=/tmp/prof/" + which, "server.mjs"], {
  env: { ...env, PORT: String(port), TOOLSMITH_LISTEN_HOST: "127.0.0.1" }, stdio: ["ignore", "pipe", "inherit"],
});
let out = "";
child.stdout!.on("data", (c) => (out += c));
while (!out.includes("serving on")) await new Promise((r) => setTimeout(r, 50));
console.log("ready");
if (which === "start") { child.kill("SIGTERM"); await new Promise((r) => child.once("exit", r)); process.exit(0); }
const api = new Api(`http://127.0.0.1:${port}`);
const created = await sendJson(api, "/api/tools", "POST", {
  name: "count_words", description: "Count words.",
  parameters_schema: { type: "object", properties: { text: { type: "string" } }, required: ["text"] },
  code: "function run({ text }) { return text.split(/\\s+/).filter(Boolean).length; }",
});
const { id } = (await created.json()) as { id: string };
const input = { text: "the quick brown fox jumps over the lazy dog" };
const call = async () => {
  if (which === "execute") {
    const r = await sendJson(api, `/api/tools/${id}/execute`, "POST", { input });
    await r.json();
  } else {
    const r = await api.fetch("/api/health");
    await r.json();
  }
};
for (let i = 0; i < 300; i++) await call();
const t = performance.now();
for (let i = 0; i < 3000; i++) await call();
console.log(which, ((performance.now() - t) / 3000).toFixed(3), "ms per call");
child.kill("SIGTERM");
await new Promise((r) => child.once("exit", r));
