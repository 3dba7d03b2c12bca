import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import { describe, expect, it } from "vitest";
import { environment, sections } from "@/lib/settings/environment.mjs";
import { envExample, readmeWithTable } from "@/scripts/settings-docs.mjs";

const names = Object.values(sections).flatMap((variables) => Object.keys(variables));
type Name = keyof ReturnType<typeof environment>;

describe("the settings", () => {
  it("take their defaults when unset, and an empty or blank value is unset", () => {
    const defaults = environment({});
    expect(defaults).toMatchObject({
      TOOLSMITH_MAX_STEPS: 8,
      TOOLSMITH_TOOL_OUTPUT_CHARS: 16_384,
      TOOLSMITH_MODEL: "gpt-4.1-mini",
      TOOLSMITH_SANDBOX_WORKERS: Math.max(2, Math.min(os.availableParallelism(), 8)),
      DATABASE_URL: "file:./data/toolsmith.db",
      PORT: 3000,
      TOOLSMITH_HEAP_MB: 384,
      NODE_ENV: "production",
      TOOLSMITH_TRUST_PROXY: false,
      TOOLSMITH_IMAGE_HOSTS: [],
      TOOLSMITH_CLIENT_STALL_MS: 10_000,
      TOOLSMITH_CONFIG: "toolsmith.config.yaml",
      SMTP_FROM: "Toolsmith <toolsmith@localhost>",
    });
    for (const unset of ["OPENAI_API_KEY", "OPENAI_BASE_URL", "TOOLSMITH_MODEL_API", "TOOLSMITH_SECRET", "SMTP_URL"])
      expect(defaults[unset as Name], unset).toBeUndefined();
    expect(environment(Object.fromEntries(names.map((name, i) => [name, i % 2 ? "" : "  "])))).toEqual(defaults);
  });

  it("read the values given, trimmed and converted", () => {
    expect(
      environment({
        TOOLSMITH_MAX_STEPS: " 12 ",
        TOOLSMITH_TRUST_PROXY: "1",
        TOOLSMITH_PUBLIC_URL: "https://chat.example.com/some/path",
        TOOLSMITH_IMAGE_HOSTS: "images.example.com, http://127.0.0.1:9000/x,",
        TOOLSMITH_MODEL_API: "responses",
      }),
    ).toMatchObject({
      TOOLSMITH_MAX_STEPS: 12,
      TOOLSMITH_TRUST_PROXY: true,
      TOOLSMITH_PUBLIC_URL: "https://chat.example.com",
      TOOLSMITH_IMAGE_HOSTS: ["https://images.example.com", "http://127.0.0.1:9000"],
      TOOLSMITH_MODEL_API: "responses",
    });
  });

  it.each([
    ["TOOLSMITH_MAX_STEPS", "abc", "an integer from 1 to 100"],
    ["TOOLSMITH_MAX_STEPS", "101", "an integer from 1 to 100"],
    ["TOOLSMITH_TOOL_TIMEOUT_MS", "1.5", "an integer from 50 to 120000"],
    ["TOOLSMITH_HEAP_MB", "-1", "an integer, 0 or more"],
    ["TOOLSMITH_MODEL_API", "ollama", "chat, compatible, responses or anthropic"],
    ["NODE_ENV", "staging", "development, production or test"],
    ["TOOLSMITH_TRUST_PROXY", "true", "0 or 1"],
    ["OPENAI_BASE_URL", "localhost:11434", "an http(s) URL such as http://localhost:11434/v1"],
    ["TOOLSMITH_PUBLIC_URL", "ftp://files.example.com", "an http(s) URL"],
    [
      "TOOLSMITH_IMAGE_HOSTS",
      "images.example.com,ftp://files.example.com",
      "comma-separated hosts (https) or http(s) origins",
    ],
  ])("stop at a bad value, naming the variable, the value and what it allows: %s=%s", (name, value, allowed) => {
    expect(() => environment({ [name]: value })).toThrow(`${name} must be ${allowed}; got "${value}".`);
  });

  it("read the price table, and name its bad entry", () => {
    expect(environment({}).TOOLSMITH_MODEL_PRICES).toEqual({});
    expect(
      environment({
        TOOLSMITH_MODEL_PRICES: '{"gpt-4.1-mini": {"input": 0.4, "output": 1.6}, "local": {"input": 0, "output": 0}}',
      }).TOOLSMITH_MODEL_PRICES,
    ).toEqual({ "gpt-4.1-mini": { input: 0.4, output: 1.6 }, local: { input: 0, output: 0 } });
    const table =
      '{"<model id>": {"input": <USD per million input tokens>, "output": <USD per million output tokens>}}';
    for (const [value, problem] of [
      ["0.4", `a JSON object ${table}`],
      ["{gpt: 1}", `JSON ${table}`],
      [
        '{"a": {"input": 1, "output": 2}, "b": {"input": -1, "output": 2}}',
        `JSON ${table}; the entry "b" is not: its "input" must be a number of dollars, 0 or more`,
      ],
      [
        '{"b": {"input": 1}}',
        `JSON ${table}; the entry "b" is not: its "output" must be a number of dollars, 0 or more`,
      ],
      [
        '{"b": {"input": 1, "output": "2"}}',
        `JSON ${table}; the entry "b" is not: its "output" must be a number of dollars, 0 or more`,
      ],
      [
        '{"b": {"input": 1, "output": 2, "cached": 0.1}}',
        `JSON ${table}; the entry "b" is not: it has "cached", neither "input" nor "output"`,
      ],
      ['{"b": 3}', `JSON ${table}; the entry "b" is not: it must be {"input": …, "output": …}`],
    ])
      expect(() => environment({ TOOLSMITH_MODEL_PRICES: value })).toThrow(
        `TOOLSMITH_MODEL_PRICES must be ${problem}; got "${value}".`,
      );
  });

  it("keep a URL's password out of the message", () => {
    const message = (env: Record<string, string>) => {
      try {
        environment(env);
      } catch (error) {
        return (error as Error).message;
      }
    };
    expect(message({ DATABASE_URL: "mysql://toolsmith:hunter2@db:3306/toolsmith" })).toBe(
      'DATABASE_URL must be a file: URL (SQLite) or a postgresql:// URL; got "mysql://…@db:3306/toolsmith".',
    );
    expect(message({ SMTP_URL: "https://mailer:p@ss@mail.example.com/send" })).toBe(
      'SMTP_URL must be an smtp:// or smtps:// URL; got "https://…@mail.example.com/send".',
    );
  });

  it("name every bad variable at once", () => {
    expect(() => environment({ PORT: "http", TOOLSMITH_LEASE_MS: "100", TOOLSMITH_MAX_STEPS: "4" })).toThrow(
      'TOOLSMITH_LEASE_MS must be an integer from 500 to 600000; got "100".\n' +
        'PORT must be an integer from 0 to 65535; got "http".',
    );
  });

  it("are parsed once per environment", () => {
    const env = { TOOLSMITH_MAX_STEPS: "3" };
    expect(environment(env)).toBe(environment(env));
  });

  it("stop the server and the migration before they start", () => {
    const run = (script: string) =>
      spawnSync(process.execPath, [script], {
        env: { ...process.env, TOOLSMITH_CLIENT_STALL_MS: "5" },
        encoding: "utf8",
        timeout: 20_000,
      });
    const problem = 'TOOLSMITH_CLIENT_STALL_MS must be an integer from 100 to 600000; got "5".';
    expect(run("server.mjs")).toMatchObject({ status: 1, stderr: `Toolsmith cannot start: ${problem}\n` });
    expect(run("scripts/migrate.mjs")).toMatchObject({ status: 1, stderr: `Cannot migrate: ${problem}\n` });
  });
});

describe(".env.example and the README's configuration table", () => {
  const envFile = fs.readFileSync(".env.example", "utf8");
  const readme = fs.readFileSync("README.md", "utf8");
  const configuration = readme.slice(readme.indexOf("## Configuration"), readme.indexOf("## Using it"));
  const envValues = new Map([...envFile.matchAll(/^# ([A-Z_]+)=(.*)$/gm)].map(([, name, value]) => [name, value]));
  const readmeDefaults = new Map(
    [...configuration.matchAll(/^\| `([A-Z_]+)` \| ?(.*?) ?\|/gm)].map(([, name, shown]) => [name, shown]),
  );

  it("list every variable of the schema, and no other", () => {
    expect([...envValues.keys()]).toEqual(names);
    expect([...readmeDefaults.keys()]).toEqual(names);
  });

  it("show the schema's defaults", () => {
    const defaults = environment({});
    for (const name of names as Name[]) {
      // Empty: no default, or one worked out when the app runs, which the README says in words.
      const value = envValues.get(name)!;
      if (!value) continue;
      expect(environment({ [name]: value })[name], name).toEqual(defaults[name]);
      expect(readmeDefaults.get(name), name).toBe(`\`${value}\``);
    }
  });

  it("are what scripts/settings-docs.mjs makes of the schema (run it after changing the schema)", () => {
    expect(envFile).toBe(envExample());
    expect(readme).toBe(readmeWithTable(readme));
  });
});
