import { z } from "zod";
import { countKeys, deleteValue, getValue, keyExists, setValue } from "@/lib/db/queries/key-value";
import { conversationOf, defineTool } from "@/lib/tools/define-tool";
import type { ToolContext } from "@/lib/tools/types";

const MAX_VALUE_BYTES = 64 * 1024;
const MAX_KEYS_PER_NAMESPACE = 1000;
const MAX_TTL_SECONDS = 365 * 24 * 60 * 60;

const key = z.string().min(1).max(256).describe("The key.");
const namespace = z
  .string()
  .regex(/^[\w.-]{1,64}$/, "letters, digits, _, . and - (64 at most)")
  .optional()
  .describe("Shared by every conversation of the same person under this name; this conversation's own when absent.");
const ttl = z.number().int().min(1).max(MAX_TTL_SECONDS);
/** The spec's default namespace is the agent's; here it is the conversation, so conversations share nothing unasked. */
const WHERE =
  "Keys belong to this conversation unless you name a namespace, which every conversation of this person shares.";

/** Namespaces belong to one identity: no conversation can read another person's keys. */
const scoped = (context: ToolContext, name?: string) =>
  `${context.ownerId}/${name ?? `conversation:${conversationOf(context)}`}`;

export const keyValueGet = defineTool({
  name: "key_value_get",
  description:
    "Read a JSON value stored with key_value_set. Returns value, which is null when the key is absent or expired " +
    `(found tells a stored null from a missing key). ${WHERE}`,
  inputSchema: z.strictObject({ key, namespace }),
  async execute(input, context) {
    const found = await getValue(scoped(context, input.namespace), input.key);
    return {
      ok: true,
      output: found ? { value: JSON.parse(found.value) as unknown, found: true } : { value: null, found: false },
    };
  },
});

export const keyValueSet = defineTool({
  name: "key_value_set",
  description:
    "Store a JSON value under a key, optionally for ttl seconds. Returns success, and expires_at with a ttl. " +
    `Values up to ${MAX_VALUE_BYTES / 1024} KB, ${MAX_KEYS_PER_NAMESPACE} keys per namespace. ${WHERE}`,
  inputSchema: z.strictObject({
    key,
    value: z.unknown().describe("Any JSON value."),
    ttl: ttl.optional().describe("Time-to-live in seconds: the key is forgotten after it."),
    ttl_seconds: ttl.optional().describe("The same as ttl."),
    namespace,
  }),
  async execute(input, context) {
    if (input.ttl !== undefined && input.ttl_seconds !== undefined && input.ttl !== input.ttl_seconds)
      return { ok: false, error: "ttl and ttl_seconds are the same setting; give one of them." };
    const json = JSON.stringify(input.value ?? null);
    if (Buffer.byteLength(json) > MAX_VALUE_BYTES)
      return {
        ok: false,
        error: `The value is over ${MAX_VALUE_BYTES / 1024} KB; store less, or split it over several keys.`,
      };
    const space = scoped(context, input.namespace);
    if (!(await keyExists(space, input.key)) && (await countKeys(space)) >= MAX_KEYS_PER_NAMESPACE) {
      return { ok: false, error: `This namespace already holds ${MAX_KEYS_PER_NAMESPACE} keys; delete some first.` };
    }
    const expiresAt = await setValue(space, input.key, json, input.ttl ?? input.ttl_seconds);
    return { ok: true, output: { success: true, expires_at: expiresAt?.toISOString() ?? null } };
  },
});

export const keyValueDelete = defineTool({
  name: "key_value_delete",
  description: `Delete a key stored with key_value_set. Returns deleted: whether it was there. ${WHERE}`,
  inputSchema: z.strictObject({ key, namespace }),
  async execute(input, context) {
    return { ok: true, output: { deleted: await deleteValue(scoped(context, input.namespace), input.key) } };
  },
});
