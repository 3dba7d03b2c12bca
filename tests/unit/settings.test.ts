import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import { describe, expect, it, vi } from "vitest";
import { environment, sections } from "@/lib/settings/environment.mjs";
import { CONFIGURATION_DOC, envExample, withTable } from "@/scripts/settings-docs.mjs";

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
    ["LLM_PROVIDER", "gemini", "openai, ollama or anthropic"],
    ["EXECUTOR_TIMEOUT", "500", "a number of seconds from 0.05 to 120"],
    ["EXECUTOR_TIMEOUT", "soon", "a number of seconds from 0.05 to 120"],
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
    const seat = spawnSync(process.execPath, ["server.mjs"], {
      env: { ...process.env, LLM_MODEL: "llama3", TOOLSMITH_MODEL: "gpt-4o" },
      encoding: "utf8",
      timeout: 20_000,
    });
    expect(seat).toMatchObject({
      status: 1,
      stderr:
        "Toolsmith cannot start: LLM_MODEL (SEAT's name) and TOOLSMITH_MODEL (Toolsmith's) disagree: LLM_MODEL=llama3 against TOOLSMITH_MODEL=gpt-4o; keep one of them, or make them alike.\n",
    });
  });
});

describe("TOOLSMITH_PRELOAD_ROUTES", () => {
  /** Next's setting as next.config.ts gives it to the server started with `value` (server.mjs has checked it). */
  const preloadWith = async (value: string | undefined) => {
    vi.resetModules();
    vi.stubEnv("TOOLSMITH_PRELOAD_ROUTES", value);
    try {
      return (await import("@/next.config")).default.experimental?.preloadEntriesOnStart;
    } finally {
      vi.unstubAllEnvs();
    }
  };

  it("has Next load every route at start by default and with 1, each at its first request with 0", async () => {
    expect(environment({}).TOOLSMITH_PRELOAD_ROUTES).toBe(true);
    expect(await preloadWith(undefined)).toBe(true);
    expect(await preloadWith("1")).toBe(true);
    expect(environment({ TOOLSMITH_PRELOAD_ROUTES: "0" }).TOOLSMITH_PRELOAD_ROUTES).toBe(false);
    expect(await preloadWith("0")).toBe(false);
    expect(() => environment({ TOOLSMITH_PRELOAD_ROUTES: "yes" })).toThrow(/TOOLSMITH_PRELOAD_ROUTES/);
  });
});

describe("SEAT's names", () => {
  const problem = (env: Record<string, string>) => {
    try {
      environment(env);
    } catch (error) {
      return (error as Error).message;
    }
  };

  it("are read as Toolsmith's: the model, its key by provider, the tool timeout in seconds", () => {
    expect(
      environment({ LLM_PROVIDER: "openai", LLM_MODEL: "gpt-4o", LLM_API_KEY: "sk-seat", EXECUTOR_TIMEOUT: "30" }),
    ).toMatchObject({
      TOOLSMITH_MODEL: "gpt-4o",
      OPENAI_API_KEY: "sk-seat",
      TOOLSMITH_MODEL_API: "chat",
      TOOLSMITH_TOOL_TIMEOUT_MS: 30_000,
    });
    expect(
      environment({ LLM_PROVIDER: "anthropic", LLM_MODEL: "claude-sonnet-4-5", LLM_API_KEY: "sk-ant" }),
    ).toMatchObject({
      TOOLSMITH_MODEL: "claude-sonnet-4-5",
      ANTHROPIC_API_KEY: "sk-ant",
      TOOLSMITH_MODEL_API: "anthropic",
    });
    expect(environment({ LLM_PROVIDER: "anthropic" }).OPENAI_API_KEY).toBeUndefined();
    expect(environment({ EXECUTOR_TIMEOUT: "0.25" }).TOOLSMITH_TOOL_TIMEOUT_MS).toBe(250);
    // An OpenAI key beside a Claude key: the provider SEAT names is the one the runs use.
    expect(
      environment({ LLM_PROVIDER: "openai", LLM_API_KEY: "sk", ANTHROPIC_API_KEY: "sk-ant" }).TOOLSMITH_MODEL_API,
    ).toBe("chat");
  });

  it("take ollama as the compatible dialect on Ollama's port, with SEAT's default model, unless told otherwise", () => {
    const ollama = { TOOLSMITH_MODEL_API: "compatible", OPENAI_BASE_URL: "http://localhost:11434/v1" };
    expect(environment({ LLM_PROVIDER: "ollama" })).toMatchObject({ ...ollama, TOOLSMITH_MODEL: "llama3" });
    expect(environment({ LLM_PROVIDER: "ollama", TOOLSMITH_MODEL: "qwen3" })).toMatchObject({
      TOOLSMITH_MODEL: "qwen3",
    });
    expect(
      environment({ LLM_PROVIDER: "ollama", LLM_MODEL: "qwen3", OPENAI_BASE_URL: "http://gpu.internal:11434/v1" }),
    ).toMatchObject({ TOOLSMITH_MODEL: "qwen3", OPENAI_BASE_URL: "http://gpu.internal:11434/v1" });
    expect(environment({ LLM_PROVIDER: "ollama", TOOLSMITH_MODEL_API: "responses" }).TOOLSMITH_MODEL_API).toBe(
      "responses",
    );
  });

  it("take LLM_MODEL alone as SEAT's default provider, ollama; beside a Toolsmith server it only names the model", () => {
    expect(environment({ LLM_MODEL: "llama3.2" })).toMatchObject({
      TOOLSMITH_MODEL: "llama3.2",
      TOOLSMITH_MODEL_API: "compatible",
      OPENAI_BASE_URL: "http://localhost:11434/v1",
    });
    const beside = environment({ LLM_MODEL: "gpt-4o", OPENAI_API_KEY: "sk" });
    expect(beside).toMatchObject({ TOOLSMITH_MODEL: "gpt-4o", OPENAI_API_KEY: "sk" });
    expect(beside.OPENAI_BASE_URL).toBeUndefined();
    expect(beside.TOOLSMITH_MODEL_API).toBeUndefined();
    expect(environment({ LLM_MODEL: "claude-haiku-4-5", ANTHROPIC_API_KEY: "sk-ant" }).OPENAI_BASE_URL).toBeUndefined();
  });

  it("stop start-up when SEAT's name and Toolsmith's disagree, naming both and showing no key", () => {
    expect(problem({ LLM_MODEL: "llama3", TOOLSMITH_MODEL: "gpt-4o" })).toBe(
      "LLM_MODEL (SEAT's name) and TOOLSMITH_MODEL (Toolsmith's) disagree: LLM_MODEL=llama3 against TOOLSMITH_MODEL=gpt-4o; keep one of them, or make them alike.",
    );
    expect(problem({ EXECUTOR_TIMEOUT: "30", TOOLSMITH_TOOL_TIMEOUT_MS: "5000" })).toBe(
      "EXECUTOR_TIMEOUT (SEAT's name) and TOOLSMITH_TOOL_TIMEOUT_MS (Toolsmith's) disagree: EXECUTOR_TIMEOUT=30 against TOOLSMITH_TOOL_TIMEOUT_MS=5000; keep one of them, or make them alike.",
    );
    const keys = problem({ LLM_PROVIDER: "openai", LLM_API_KEY: "sk-one", OPENAI_API_KEY: "sk-two" });
    expect(keys).toBe(
      "LLM_API_KEY (SEAT's name) and OPENAI_API_KEY (Toolsmith's) are both set, to different keys; keep one of them.",
    );
    expect(problem({ LLM_PROVIDER: "anthropic", TOOLSMITH_MODEL_API: "chat" })).toBe(
      "LLM_PROVIDER (SEAT's name) and TOOLSMITH_MODEL_API (Toolsmith's) disagree: LLM_PROVIDER=anthropic cannot use TOOLSMITH_MODEL_API=chat; keep one of them.",
    );
    expect(problem({ LLM_PROVIDER: "ollama", TOOLSMITH_MODEL_API: "anthropic" })).toMatch(
      /^LLM_PROVIDER \(SEAT's name\) and TOOLSMITH_MODEL_API \(Toolsmith's\) disagree/,
    );
    expect(problem({ LLM_API_KEY: "sk" })).toMatch(/^LLM_API_KEY is set without LLM_PROVIDER/);
    // Alike is no conflict, and the other problems are named at once.
    expect(
      environment({ LLM_MODEL: "m", TOOLSMITH_MODEL: "m", EXECUTOR_TIMEOUT: "5", TOOLSMITH_TOOL_TIMEOUT_MS: "5000" }),
    ).toMatchObject({ TOOLSMITH_MODEL: "m", TOOLSMITH_TOOL_TIMEOUT_MS: 5000 });
    expect(problem({ LLM_MODEL: "a", TOOLSMITH_MODEL: "b", PORT: "http" })?.split("\n")).toHaveLength(2);
  });

  it("read SQLAlchemy's PostgreSQL URLs, driver suffix and all, as postgresql://", () => {
    for (const [given, read] of [
      ["postgresql+asyncpg://seat:seat@localhost:5433/seat", "postgresql://seat:seat@localhost:5433/seat"],
      ["postgres+psycopg2://u:p@db/x", "postgresql://u:p@db/x"],
      [
        "postgresql+psycopg://u:p@db/x?ssl=require&application_name=a",
        "postgresql://u:p@db/x?sslmode=require&application_name=a",
      ],
      ["postgres://u:p@db/x?ssl=true", "postgres://u:p@db/x?ssl=true"],
    ])
      expect(environment({ DATABASE_URL: given }).DATABASE_URL).toBe(read);
    expect(problem({ DATABASE_URL: "mysql+aiomysql://u:p@db/x" })).toMatch(/^DATABASE_URL must be a file: URL/);
  });
});

describe(".env.example and the configuration table of docs/configuration.md", () => {
  const envFile = fs.readFileSync(".env.example", "utf8");
  const doc = fs.readFileSync(CONFIGURATION_DOC, "utf8");
  const table = doc.slice(
    doc.indexOf("<!-- The table is generated"),
    doc.indexOf("<!-- End of the generated table. -->"),
  );
  const envValues = new Map([...envFile.matchAll(/^# ([A-Z0-9_]+)=(.*)$/gm)].map(([, name, value]) => [name, value]));
  const docDefaults = new Map(
    [...table.matchAll(/^\| `([A-Z0-9_]+)` \| ?(.*?) ?\|/gm)].map(([, name, shown]) => [name, shown]),
  );

  it("list every variable of the schema, and no other", () => {
    expect([...envValues.keys()]).toEqual(names);
    expect([...docDefaults.keys()]).toEqual(names);
  });

  it("show the schema's defaults", () => {
    const defaults = environment({});
    for (const name of names as Name[]) {
      // Empty: no default, or one worked out when the app runs, which the table says in words.
      const value = envValues.get(name)!;
      if (!value) continue;
      expect(environment({ [name]: value })[name], name).toEqual(defaults[name]);
      expect(docDefaults.get(name), name).toBe(`\`${value}\``);
    }
  });

  it("are what scripts/settings-docs.mjs makes of the schema (run it after changing the schema)", () => {
    expect(envFile).toBe(envExample());
    expect(doc).toBe(withTable(doc));
  });
});
