"use client";

import { Play } from "lucide-react";
import { useId, useState } from "react";
import { Button } from "@/components/ui/Button";

/**
 * A form for a tool's inputs, from its parameters schema: fields for strings, numbers, booleans and enums, a JSON field
 * for anything else. Not a JSON-Schema form library: those validate with Ajv, whose `new Function` the CSP forbids.
 */
export function RunForm({
  schema,
  running,
  onRun,
}: {
  schema: Record<string, unknown>;
  running: boolean;
  onRun: (input: Record<string, unknown>) => void;
}) {
  const id = useId();
  const properties = (schema.properties ?? {}) as Record<string, FieldSchema>;
  const required = new Set(Array.isArray(schema.required) ? (schema.required as string[]) : []);
  const [values, setValues] = useState<Record<string, string | boolean>>({});
  const [problem, setProblem] = useState<string | null>(null);

  const submit = (event: React.FormEvent) => {
    event.preventDefault();
    try {
      setProblem(null);
      onRun(
        Object.fromEntries(Object.entries(properties).flatMap(([name, field]) => toInput(name, field, values[name]))),
      );
    } catch (error) {
      setProblem((error as Error).message);
    }
  };

  return (
    <form onSubmit={submit} className="space-y-3" aria-label="Run the tool">
      {Object.entries(properties).map(([name, field]) => {
        const fieldId = `${id}-${name}`;
        const kind = fieldKind(field);
        const label = (
          <label htmlFor={fieldId} className="block text-sm font-medium">
            {name}
            {required.has(name) ? "" : " (optional)"}
            {field.description && (
              <span className="block text-xs font-normal text-zinc-600 dark:text-zinc-400">{field.description}</span>
            )}
          </label>
        );
        const input =
          "w-full rounded-md border border-zinc-300 bg-white px-2 py-1.5 text-sm dark:border-zinc-700 dark:bg-zinc-900";
        if (kind === "boolean") {
          return (
            <div key={name} className="flex items-start gap-2">
              <input
                id={fieldId}
                type="checkbox"
                checked={values[name] === true}
                onChange={(event) => setValues({ ...values, [name]: event.target.checked })}
                className="mt-1"
              />
              {label}
            </div>
          );
        }
        return (
          <div key={name} className="space-y-1">
            {label}
            {kind === "enum" ? (
              <select
                id={fieldId}
                required={required.has(name)}
                value={String(values[name] ?? "")}
                onChange={(event) => setValues({ ...values, [name]: event.target.value })}
                className={input}
              >
                <option value="">—</option>
                {field.enum!.map((option) => (
                  <option key={String(option)} value={String(option)}>
                    {String(option)}
                  </option>
                ))}
              </select>
            ) : kind === "json" ? (
              <textarea
                id={fieldId}
                required={required.has(name)}
                rows={3}
                placeholder="JSON"
                value={String(values[name] ?? "")}
                onChange={(event) => setValues({ ...values, [name]: event.target.value })}
                className={`${input} font-mono`}
              />
            ) : (
              <input
                id={fieldId}
                type={kind === "number" ? "number" : "text"}
                step={kind === "number" ? "any" : undefined}
                required={required.has(name)}
                value={String(values[name] ?? "")}
                onChange={(event) => setValues({ ...values, [name]: event.target.value })}
                className={input}
              />
            )}
          </div>
        );
      })}
      {problem && (
        <p role="alert" className="text-sm text-rose-700 dark:text-rose-300">
          {problem}
        </p>
      )}
      <Button type="submit" variant="primary" disabled={running}>
        <Play className="size-4" aria-hidden /> {running ? "Running…" : "Run"}
      </Button>
    </form>
  );
}

interface FieldSchema {
  type?: string | string[];
  enum?: unknown[];
  description?: string;
}

type FieldKind = "string" | "number" | "boolean" | "enum" | "json";

function fieldKind(field: FieldSchema): FieldKind {
  if (Array.isArray(field.enum)) return "enum";
  const type = Array.isArray(field.type) ? field.type.find((candidate) => candidate !== "null") : field.type;
  if (type === "string" || type === "boolean") return type;
  if (type === "number" || type === "integer") return "number";
  return "json";
}

/** The typed value of one field, or nothing when an optional field is left empty. */
function toInput(name: string, field: FieldSchema, raw: string | boolean | undefined): [string, unknown][] {
  const kind = fieldKind(field);
  if (kind === "boolean") return raw === undefined ? [] : [[name, raw === true]];
  if (raw === undefined || raw === "") return [];
  if (kind === "number") return [[name, Number(raw)]];
  if (kind === "enum") return [[name, field.enum!.find((option) => String(option) === raw)]];
  if (kind === "json") {
    try {
      return [[name, JSON.parse(String(raw))]];
    } catch {
      throw new Error(`${name} must be JSON, e.g. [1, 2] or {"a": 1}.`);
    }
  }
  return [[name, raw]];
}
