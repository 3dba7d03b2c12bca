/**
 * A math expression evaluator with Python's syntax and semantics (// floors, % takes the divisor's sign, ** binds
 * tighter than unary minus, comparisons chain). A parser over a fixed grammar: nothing is ever evaluated as code.
 */

const MAX_LENGTH = 2_000;
const MAX_DEPTH = 64;

const CONSTANTS: Record<string, number> = { pi: Math.PI, e: Math.E, tau: 2 * Math.PI, inf: Infinity };

const FUNCTIONS: Record<string, { arity: [number, number]; apply: (...args: number[]) => number }> = {
  abs: { arity: [1, 1], apply: Math.abs },
  round: { arity: [1, 2], apply: (x, digits = 0) => roundHalfEven(x, digits) },
  min: { arity: [1, 100], apply: Math.min },
  max: { arity: [1, 100], apply: Math.max },
  sqrt: { arity: [1, 1], apply: (x) => domain(x >= 0, Math.sqrt(x)) },
  sin: { arity: [1, 1], apply: Math.sin },
  cos: { arity: [1, 1], apply: Math.cos },
  tan: { arity: [1, 1], apply: Math.tan },
  log: {
    arity: [1, 2],
    apply: (x, base) =>
      domain(
        x > 0 && (base === undefined || (base > 0 && base !== 1)),
        base === undefined ? Math.log(x) : Math.log(x) / Math.log(base),
      ),
  },
  log10: { arity: [1, 1], apply: (x) => domain(x > 0, Math.log10(x)) },
};

type Token = { kind: "number"; value: number } | { kind: "name"; value: string } | { kind: "op"; value: string };

const OPERATORS = ["**", "//", "<=", ">=", "==", "!=", "+", "-", "*", "/", "%", "<", ">", "(", ")", ","];

function tokenize(source: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  while (i < source.length) {
    const rest = source.slice(i);
    const space = /^\s+/.exec(rest);
    if (space) {
      i += space[0].length;
      continue;
    }
    const number = /^(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?/.exec(rest);
    if (number) {
      tokens.push({ kind: "number", value: Number(number[0]) });
      i += number[0].length;
      continue;
    }
    const name = /^[A-Za-z_][A-Za-z0-9_]*/.exec(rest);
    if (name) {
      tokens.push({ kind: "name", value: name[0] });
      i += name[0].length;
      continue;
    }
    const operator = OPERATORS.find((op) => rest.startsWith(op));
    if (!operator) throw new Error(`unexpected character "${rest[0]}" at position ${i + 1}`);
    tokens.push({ kind: "op", value: operator });
    i += operator.length;
  }
  return tokens;
}

export function evaluateExpression(source: string): number | boolean {
  if (source.length > MAX_LENGTH) throw new Error(`expression is longer than ${MAX_LENGTH} characters`);
  const tokens = tokenize(source);
  let position = 0;
  let depth = 0;

  const peek = () => tokens[position];
  const isOp = (value: string) => peek()?.kind === "op" && peek()!.value === value;
  const expect = (value: string) => {
    if (!isOp(value))
      throw new Error(`expected "${value}"${peek() ? ` before "${String(peek()!.value)}"` : " at the end"}`);
    position++;
  };
  const nested = <T>(parse: () => T): T => {
    if (++depth > MAX_DEPTH) throw new Error("expression is nested too deeply");
    try {
      return parse();
    } finally {
      depth--;
    }
  };

  function comparison(): number | boolean {
    const first = sum();
    const comparators = ["<", ">", "<=", ">=", "==", "!="];
    if (!comparators.some(isOp)) return first;
    let left = first;
    let result = true;
    while (comparators.some(isOp)) {
      const op = (tokens[position++] as { value: string }).value;
      const right = sum();
      result &&= compare(op, left, right);
      left = right;
    }
    return result;
  }

  function sum(): number {
    let value = term();
    while (isOp("+") || isOp("-")) value = tokens[position++].value === "+" ? value + term() : value - term();
    return value;
  }

  function term(): number {
    let value = unary();
    while (isOp("*") || isOp("/") || isOp("//") || isOp("%")) {
      const op = tokens[position++].value;
      const right = unary();
      if (op === "*") value *= right;
      else if (right === 0) throw new Error("division by zero");
      else if (op === "/") value /= right;
      else if (op === "//") value = Math.floor(value / right);
      else value = value - right * Math.floor(value / right);
    }
    return value;
  }

  function unary(): number {
    if (isOp("-")) return (position++, -nested(unary));
    if (isOp("+")) return (position++, nested(unary));
    return power();
  }

  function power(): number {
    const base = primary();
    if (!isOp("**")) return base;
    position++;
    const exponent = nested(unary);
    return domain(!(base < 0 && !Number.isInteger(exponent)), base ** exponent);
  }

  function primary(): number {
    const token = tokens[position++];
    if (!token) throw new Error("unexpected end of expression");
    if (token.kind === "number") return token.value;
    if (token.kind === "op") {
      if (token.value !== "(") throw new Error(`unexpected "${token.value}"`);
      const value = nested(comparison);
      expect(")");
      return toNumber(value);
    }
    if (isOp("(")) return call(token.value);
    if (Object.hasOwn(CONSTANTS, token.value)) return CONSTANTS[token.value];
    throw new Error(`unknown name "${token.value}"`);
  }

  function call(name: string): number {
    const fn = Object.hasOwn(FUNCTIONS, name) ? FUNCTIONS[name] : undefined;
    if (!fn) throw new Error(`unknown function "${name}"; available: ${Object.keys(FUNCTIONS).join(", ")}`);
    expect("(");
    const args: number[] = [];
    if (!isOp(")")) {
      do args.push(toNumber(nested(comparison)));
      while (isOp(",") && ++position);
    }
    expect(")");
    const [least, most] = fn.arity;
    if (args.length < least || args.length > most)
      throw new Error(
        `${name}() takes ${least === most ? least : `${least} to ${most}`} arguments, got ${args.length}`,
      );
    return fn.apply(...args);
  }

  if (tokens.length === 0) throw new Error("empty expression");
  const result = comparison();
  if (position < tokens.length) throw new Error(`unexpected "${String(tokens[position].value)}"`);
  if (typeof result === "number" && Number.isNaN(result)) throw new Error("result is not a number");
  return result;
}

function compare(op: string, a: number | boolean, b: number | boolean): boolean {
  const [x, y] = [Number(a), Number(b)];
  switch (op) {
    case "<":
      return x < y;
    case ">":
      return x > y;
    case "<=":
      return x <= y;
    case ">=":
      return x >= y;
    case "==":
      return x === y;
    default:
      return x !== y;
  }
}

function toNumber(value: number | boolean): number {
  return typeof value === "boolean" ? Number(value) : value;
}

function domain(valid: boolean, value: number): number {
  if (!valid) throw new Error("math domain error");
  return value;
}

/** Python's round(): halves go to the even neighbour. */
function roundHalfEven(x: number, digits: number): number {
  if (!Number.isInteger(digits)) throw new Error("round() digits must be an integer");
  const factor = 10 ** digits;
  const scaled = x * factor;
  const floor = Math.floor(scaled);
  const diff = scaled - floor;
  const rounded = Math.abs(diff - 0.5) < 1e-9 ? (floor % 2 === 0 ? floor : floor + 1) : Math.round(scaled);
  return rounded / factor;
}
