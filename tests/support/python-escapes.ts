import { randomBytes } from "node:crypto";
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";

interface FormCommon {
  id: string;
  class: string;
  note: string;
  /** Where the technique comes from (a CVE, an advisory, a public collection), when it has a public source. */
  source?: string;
}

/** One form of tests/data/python-escapes.json: a Python tool module whose `run(inputs)` tries to get out. */
export interface SingleForm extends FormCommon {
  code: string;
  plant?: undefined;
  harvest?: undefined;
}

/**
 * A form across callers: identity A registers `plant` and `harvest`, B calls the victim with a secret between A's
 * two calls, on one process slot. It holds when nothing of B's reaches A and B's answer is unchanged.
 */
export interface CrossCallerForm extends FormCommon {
  class: "cross-caller";
  plant: string;
  harvest: string;
  code?: undefined;
}

export type EscapeForm = SingleForm | CrossCallerForm;

/** The whole corpus, as the file has it. */
export const corpus: EscapeForm[] = JSON.parse(
  fs.readFileSync(path.resolve(process.cwd(), "tests/data/python-escapes.json"), "utf8"),
);

/** The forms that are one tool each, called once. */
export const escapeForms: SingleForm[] = corpus.filter((form): form is SingleForm => form.code !== undefined);

/** The forms that run as plant (A), victim (B), harvest (A). */
export const crossCallerForms: CrossCallerForm[] = corpus.filter(
  (form): form is CrossCallerForm => form.plant !== undefined,
);

/** The environment variable that holds the canary, in the test process and in any server it starts. */
export const CANARY_VARIABLE = "TOOLSMITH_ESCAPE_CANARY";

/**
 * What an escape would reach, and the means to tell: a canary in the environment and in a file under the host's
 * temporary directory, a loopback listener that counts connections, and the host paths the forms try to write.
 * Forms name them by placeholder ({{CANARY_VAR}}, {{CANARY_FILE}}, {{PORT}}, {{PWNED}}, and {{HOST_CWD}}, the server's own
 * directory, which a jail must not show), filled in by `code()`.
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

  /** The form's code (or its plant's, or its harvest's) with the placeholders filled in. */
  code(form: EscapeForm, part: "code" | "plant" | "harvest" = "code"): string {
    const text = form[part];
    if (text === undefined) throw new Error(`${form.id} has no ${part}`);
    return text
      .replaceAll("{{HOST_CWD}}", process.cwd())
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

  /**
   * Everything that shows an escape in what came back (an outcome, an API answer): empty when contained. Besides the
   * canary, the listener and host files: what the forms themselves found they could do that the jail forbids (an
   * output's `escaped`), and what a harvest found of another call (`crossed`).
   */
  breaches(answer: unknown): string[] {
    const text = JSON.stringify(answer) ?? "";
    return [
      ...(text.includes(this.canary) ? ["the canary is in the answer"] : []),
      ...(this.connections.length > 0 ? [`the listener was reached: ${this.connections.join(" | ")}`] : []),
      ...this.hostFiles().map((name) => `a host file was written: ${name}`),
      ...reported(answer, "escaped").map((what) => `the form got through: ${what}`),
      ...reported(answer, "crossed").map((what) => `from another call: ${what}`),
    ];
  }
}

/** The strings a form reported under `key` (`escaped`, `crossed`) in any output within the answer. */
export function reported(answer: unknown, key: "escaped" | "crossed"): string[] {
  const found: string[] = [];
  const visit = (value: unknown, depth: number): void => {
    if (depth > 6 || typeof value !== "object" || value === null) return;
    if (Array.isArray(value)) return value.forEach((item) => visit(item, depth + 1));
    for (const [name, item] of Object.entries(value)) {
      if (name === key && Array.isArray(item)) found.push(...item.map((entry) => String(entry).slice(0, 500)));
      else visit(item, depth + 1);
    }
  };
  visit(answer, 0);
  return found;
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

/** B's ordinary tool of the cross-caller forms: it reads what a plant would have changed, and answers exactly. */
export const crossCallerVictimCode = `import calendar
import csv
import decimal
import json
import math
import re

import matplotlib
import numpy as np
import pandas as pd


def run(inputs):
    print('victim', inputs['from'])
    secret = inputs['secret']
    # An ordinary report: a small frame, written to a temporary file and read back.
    frame = pd.DataFrame({'who': ['a', 'b', secret], 'n': [1, 2, 3]})
    frame.to_csv('/tmp/victim-report.csv', index=False)
    back = pd.read_csv('/tmp/victim-report.csv')
    # A division by zero warns (a RuntimeWarning, through the warnings machinery) and gives inf.
    ratio = np.float64(1.0) / np.float64(0.0)
    return {
        'sum': 125 + 125,
        'total': int(frame['n'].sum()),
        'mean': float(np.mean(np.array([1.0, 2.0, 4.5]))),
        'dot': int(np.dot([1, 2], [3, 4])),
        'inf': bool(np.isinf(ratio)),
        'report': back.to_dict('list'),
        'json': json.dumps({'secret': secret, 'n': [1, 2]}),
        'loads': json.loads('{"a": [1, 2.5, null]}'),
        'words': re.findall('[a-z]+', 'alpha, beta; gamma'),
        'hex': len(re.findall('[0-9a-f]', secret.split('-')[1])),
        'pi': math.pi,
        'third': str(decimal.Decimal(1) / 3),
        'week': calendar.firstweekday(),
        'csv': list(csv.reader(['a;b,c'])),
        'digits': len(str(10 ** 4000)),
        'options': {
            'rows': pd.get_option('display.max_rows'),
            'precision': np.get_printoptions()['precision'],
            'array': str(np.array([1 / 3, 2 / 3])),
            'dpi': float(matplotlib.rcParams['figure.dpi']),
            'usetex': bool(matplotlib.rcParams['text.usetex']),
            'errors': np.geterr()['divide'],
        },
        'inputs': inputs,
    }
`;

/** A secret of B's for one cross-caller form: B's input, and what B's tool must answer with it. */
export function crossCallerVictim(secret = `secret-${randomBytes(12).toString("hex")}`) {
  const input = { from: "the next caller", secret };
  return {
    secret,
    input,
    output: {
      sum: 250,
      total: 6,
      mean: 2.5,
      dot: 11,
      inf: true,
      report: { who: ["a", "b", secret], n: [1, 2, 3] },
      json: `{"secret": "${secret}", "n": [1, 2]}`,
      loads: { a: [1, 2.5, null] },
      words: ["alpha", "beta", "gamma"],
      hex: 24,
      pi: Math.PI,
      third: "0.3333333333333333333333333333",
      week: 0,
      csv: [["a;b", "c"]],
      digits: 4001,
      options: { rows: 60, precision: 8, array: "[0.33333333 0.66666667]", dpi: 100, usetex: false, errors: "warn" },
      inputs: input,
    },
  };
}

/**
 * Python that finds a call's channel as an attacker would with the first layer off: `channel()` is the first socket
 * among the low descriptors, as a socket object of its own (it needs os, socket and stat imported).
 */
export const FIND_CHANNEL = `
def channel():
    for fd in range(3, 21):
        try:
            if stat.S_ISSOCK(os.fstat(fd).st_mode):
                return socket.socket(fileno=os.dup(fd))
        except OSError:
            pass
`;
