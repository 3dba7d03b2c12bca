import { signatureParameters } from "@/lib/tools/signature";

/** `name(param: type, optional?: type)`, with required and optional parameters told apart. */
export function Signature({ name, schema }: { name: string; schema: Record<string, unknown> }) {
  const parameters = signatureParameters(schema);
  return (
    <code className="break-words font-mono text-[13px]" data-testid="tool-signature">
      <span className="font-semibold">{name}</span>(
      {parameters.map((parameter, index) => (
        <span key={parameter.name}>
          {index > 0 && ", "}
          <span
            className={parameter.required ? "" : "text-zinc-500 dark:text-zinc-400"}
            title={parameter.required ? "required" : "optional"}
          >
            {parameter.name}
            {parameter.required ? "" : "?"}
          </span>
          : <span className="text-sky-700 dark:text-sky-300">{parameter.type}</span>
        </span>
      ))}
      )
    </code>
  );
}
