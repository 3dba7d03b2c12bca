import { randomBytes } from "node:crypto";
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";

/** One form of tests/data/python-escapes.json: a Python tool module whose `run(inputs)` tries to get out. */
export interface EscapeForm {
  id: string;
  class: string;
  code: string;
  note: string;
}

export const escapeForms: EscapeForm[] = JSON.parse(
  fs.readFileSync(path.resolve(process.cwd(), "tests/data/python-escapes.json"), "utf8"),
);

/** The environment variable that holds the canary, in the test process and in any server it starts. */
export const CANARY_VARIABLE = "TOOLSMITH_ESCAPE_CANARY";

/**
 * What an escape would reach, and the means to tell: a canary in the environment and in a file under the host's
 * temporary directory, a loopback listener that counts connections, and the host paths the forms try to write.
 * Forms name them by placeholder ({{CANARY_VAR}}, {{CANARY_FILE}}, {{PORT}}, {{PWNED}}), filled in by `code()`.
 */
export class EscapeTargets {
  readonly canary = `canary-${randomBytes(12).toString("hex")}`;
  readonly canaryFile = path.join(os.tmpdir(), `toolsmith-canary-file-${randomBytes(6).toString("hex")}`);
  /** Forms write to this prefix plus their id. */
  readonly pwnedPrefix = path.join(os.tmpdir(), `toolsmith-pwned-${randomBytes(6).toString("hex")}-`);
  /** Who connected to the listener, and what they sent first. */
  readonly connections: string[] = [];
  port = 0;
  private listener?: net.Server;

  async start(): Promise<void> {
    fs.writeFileSync(this.canaryFile, this.canary);
    this.listener = net.createServer((socket) => {
      const index = this.connections.push("(connected)") - 1;
      socket.on("data", (chunk) => (this.connections[index] = chunk.toString("utf8", 0, 200)));
      socket.on("error", () => {});
      socket.end();
    });
    await new Promise<void>((resolve) => this.listener!.listen(0, "127.0.0.1", resolve));
    this.port = (this.listener.address() as net.AddressInfo).port;
  }

  async stop(): Promise<void> {
    fs.rmSync(this.canaryFile, { force: true });
    await new Promise((resolve) => this.listener?.close(resolve));
  }

  /** The form's code with the placeholders filled in. */
  code(form: EscapeForm): string {
    return form.code
      .replaceAll("{{CANARY_VAR}}", CANARY_VARIABLE)
      .replaceAll("{{CANARY_FILE}}", this.canaryFile)
      .replaceAll("{{PORT}}", String(this.port))
      .replaceAll("{{PWNED}}", `${this.pwnedPrefix}${form.id}`);
  }

  /** Files the forms managed to write on the host. */
  hostFiles(): string[] {
    const dir = path.dirname(this.pwnedPrefix);
    const prefix = path.basename(this.pwnedPrefix);
    return fs.readdirSync(dir).filter((name) => name.startsWith(prefix));
  }

  /** Everything that shows an escape in what came back (an outcome, an API answer): empty when contained. */
  breaches(answer: unknown): string[] {
    const text = JSON.stringify(answer) ?? "";
    return [
      ...(text.includes(this.canary) ? ["the canary is in the answer"] : []),
      ...(this.connections.length > 0 ? [`the listener was reached: ${this.connections.join(" | ")}`] : []),
      ...this.hostFiles().map((name) => `a host file was written: ${name}`),
    ];
  }
}

/**
 * An ordinary tool that uses what the forms try to poison: run after a form on the same process, with `input`, it
 * must answer exactly `output`, printing exactly `victim`.
 */
export const victim = {
  code: `import calendar
import collections.abc
import csv
import decimal
import json
import math
import re

def run(inputs):
    print('victim')

    def depth(n):
        return 0 if n == 0 else depth(n - 1) + 1

    return {
        'len': len([1, 2]),
        'pi': math.pi,
        'json': json.dumps({'a': [1, 2]}),
        'week': calendar.firstweekday(),
        'csv': list(csv.reader(['abcdef,g'])),
        'excel': list(csv.reader(['a;b,c'], 'excel')),
        'mapping': isinstance([], collections.abc.Mapping),
        'third': str(decimal.Decimal(1) / 3),
        'depth': depth(200),
        'digits': len(str(10 ** 4000)),
        'match': bool(re.match('a+', 'aaa')),
        'inputs': inputs,
    }
`,
  input: { from: "the next caller" },
  output: {
    len: 2,
    pi: Math.PI,
    json: '{"a": [1, 2]}',
    week: 0,
    csv: [["abcdef", "g"]],
    excel: [["a;b", "c"]],
    mapping: false,
    third: "0.3333333333333333333333333333",
    depth: 200,
    digits: 4001,
    match: true,
    inputs: { from: "the next caller" },
  },
};
