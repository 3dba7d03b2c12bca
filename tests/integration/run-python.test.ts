// run_python through the real server: a chat run calls it as the model would, and profiles allow, deny and guard it
// as any built-in.
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Api, ofType } from "../support/api";
import { scriptedApp, tempDataDir, type AppServer } from "../support/app-server";
import { ModelServer } from "../support/model-server";
import { readSse } from "../support/sse";

const CONFIG = `profiles:
  - name: python
    tools: [run_python, calculate]
  - name: javascript
    tools: [run_code, calculate]
  - name: careful
    tools: [run_python]
    think: false
    approval: [run_python]
  - name: builder
    tools: [register_tool]
default_profile: python
`;

const model = new ModelServer();
let app: AppServer;
let api: Api;

beforeAll(async () => {
  await model.start();
  const configFile = path.join(tempDataDir(), "toolsmith.config.yaml");
  fs.writeFileSync(configFile, CONFIG);
  app = scriptedApp(model.url, { TOOLSMITH_CONFIG: configFile });
  await app.start();
  api = new Api(app.url);
});
afterAll(async () => {
  await app?.stop();
  await model.stop();
});

let prompts = 0;
/** One run of the profile in which the model calls run_python with each snippet; the prompt and the run's events. */
async function runPython(profile: string, ...snippets: string[]) {
  const prompt = `Some Python, run ${++prompts}.`;
  model.script(prompt, [
    { toolCalls: snippets.map((code) => ({ name: "run_python", args: { code } })) },
    { text: "Done." },
  ]);
  const { id } = await api.createConversation(profile);
  return { prompt, events: await api.run(id, prompt) };
}

describe("run_python in a chat run", () => {
  it("answers the value of the last expression and the lines printed, and the model reads both", async () => {
    const code = 'import statistics\nprint("mean", statistics.mean([1, 2, 4]))\nprint("done")\nsorted({3, 1, 2})';
    const { prompt, events } = await runPython("python", code);

    expect(model.toolsOffered(prompt)).toEqual(["calculate", "run_python", "search_tools", "think"]);
    const [result] = ofType(events, "tool_result");
    expect(result).toMatchObject({
      name: "run_python",
      ok: true,
      output: { value: [1, 2, 3], console: ["mean 2.3333333333333335", "done"] },
    });
    const observed = JSON.stringify(model.requestsFor(prompt)[1].messages.at(-1));
    expect(observed).toContain("mean 2.3333333333333335");
    expect(events.at(-1)!.data).toMatchObject({ type: "run_finished", status: "completed" });
  });

  it("says where its output was cut, what failed with the lines printed before it, and what the policy refused", async () => {
    const { events } = await runPython(
      "python",
      "for i in range(100000):\n    print(i)\nlen('x')",
      'print("before")\n1 / 0',
      "import os\nos.getcwd()",
    );
    const results = ofType(events, "tool_result");
    const calls = ofType(events, "tool_call");
    const [flood, failed, refused] = calls.map((call) => results.find((result) => result.callId === call.callId)!);

    expect(flood).toMatchObject({ ok: true, output: { value: 1 } });
    expect((flood.output as { console: string[] }).console.at(-1)).toBe("[console output truncated]");
    expect(failed).toMatchObject({ ok: false, error: expect.stringMatching(/ZeroDivisionError[\s\S]*before/) });
    expect(refused).toMatchObject({ ok: false, error: expect.stringMatching(/refused by policy: line 1,.*\bos\b/) });
  });

  it("is not offered by a profile that leaves it out, and a call of it is an unknown tool", async () => {
    const { prompt, events } = await runPython("javascript", "1 + 1");
    expect(model.toolsOffered(prompt)).toEqual(["calculate", "run_code", "search_tools", "think"]);
    expect(ofType(events, "tool_result")[0]).toMatchObject({
      ok: false,
      error: expect.stringContaining('There is no tool named "run_python"'),
    });
  });

  it("waits for a person's yes where the profile says so, and is in the audit log like any built-in", async () => {
    const prompt = "Python, carefully.";
    model.script(prompt, [{ toolCalls: [{ name: "run_python", args: { code: "6 * 7" } }] }, { text: "42." }]);
    const { id } = await api.createConversation("careful");
    const seen = await readSse(await api.send(id, prompt), (message) => message.data.type === "approval_requested");
    const requested = seen.at(-1)!;
    expect(requested.data).toMatchObject({ tool: "run_python", input: { code: "6 * 7" } });
    expect((await api.answerApproval(id, requested.data.approvalId as string, true)).status).toBe(200);
    const after = await readSse(await api.events(id, requested.id));
    expect(ofType(after, "tool_result")[0]).toMatchObject({ ok: true, output: { value: 42, console: [] } });

    const { entries } = await (await api.fetch("/api/audit?tool=run_python&limit=200")).json();
    const decisions = entries.map((entry: { decision: string; outcome: string }) => entry.decision);
    expect(decisions).toEqual(expect.arrayContaining(["allowed", "approved", "refused"]));
    expect(entries.find((entry: { decision: string }) => entry.decision === "approved")).toMatchObject({
      profile: "careful",
      outcome: "succeeded",
    });
  });
});

describe("a Python tool's prints and charts in a chat run", () => {
  it("come back on its result: the trace has them, the model reads them, the Markdown export says them", async () => {
    const prompt = "Chart and report.";
    const code = [
      "import matplotlib.pyplot as plt",
      "",
      "def run(inputs):",
      '    print("summing", inputs["values"])',
      '    plt.plot(inputs["values"])',
      '    return {"total": sum(inputs["values"])}',
    ].join("\n");
    const schema = { type: "object", properties: { values: { type: "array", items: { type: "number" } } } };
    model.script(prompt, [
      {
        toolCalls: [
          {
            name: "register_tool",
            args: { name: "chart_total", description: "Sum and chart.", parameters_schema: schema, python_code: code },
          },
        ],
      },
      { toolCalls: [{ name: "chart_total", args: { values: [1, 2, 4] } }] },
      { text: "Charted." },
    ]);
    const { id } = await api.createConversation("builder");
    const events = await api.run(id, prompt);
    const result = ofType(events, "tool_result").find((event) => event.name === "chart_total")!;
    expect(result).toMatchObject({ ok: true, output: { total: 7 }, logs: ["summing [1, 2, 4]"] });
    const images = result.images as { mimeType: string; data: string }[];
    expect(images).toHaveLength(1);
    expect(images[0].mimeType).toBe("image/png");
    expect(Buffer.from(images[0].data, "base64").subarray(0, 8)).toEqual(
      Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    );

    const observed = JSON.stringify(model.requestsFor(prompt)[2].messages.at(-1));
    expect(observed).toContain('{\\"total\\":7}');
    expect(observed).toContain("Printed:\\nsumming [1, 2, 4]");
    expect(observed).toContain("[A chart the code drew was shown to the person as an image.]");
    expect(observed).not.toContain(images[0].data.slice(0, 40));

    const markdown = await (await api.fetch(`/api/conversations/${id}/export?format=md`)).text();
    expect(markdown).toContain("Printed:\n```text\nsumming [1, 2, 4]\n```");
    expect(markdown).toContain("🖼 An image (in the JSON export and the trace).");
  });
});
