export interface SignatureParameter {
  name: string;
  type: string;
  required: boolean;
}

interface SchemaNode {
  type?: string | string[];
  items?: SchemaNode;
  enum?: unknown[];
  properties?: Record<string, SchemaNode>;
  required?: string[];
}

/** `text: string`, `limit?: number`... from an object schema, in property order. */
export function signatureParameters(schema: Record<string, unknown>): SignatureParameter[] {
  const node = schema as SchemaNode;
  const required = new Set(node.required ?? []);
  return Object.entries(node.properties ?? {}).map(([name, property]) => ({
    name,
    type: typeName(property),
    required: required.has(name),
  }));
}

export function signatureText(name: string, schema: Record<string, unknown>): string {
  const parameters = signatureParameters(schema).map((p) => `${p.name}${p.required ? "" : "?"}: ${p.type}`);
  return `${name}(${parameters.join(", ")})`;
}

function typeName(node: SchemaNode | undefined): string {
  if (!node) return "any";
  if (node.enum) return node.enum.map((value) => JSON.stringify(value)).join(" | ");
  const type = Array.isArray(node.type) ? node.type.join(" | ") : node.type;
  if (type === "array") return `${typeName(node.items)}[]`;
  if (type === "object" && node.properties)
    return `{ ${signatureParameters(node as Record<string, unknown>)
      .map((p) => `${p.name}${p.required ? "" : "?"}: ${p.type}`)
      .join("; ")} }`;
  return type ?? "any";
}
