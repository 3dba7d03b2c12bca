import { describe, expect, it } from "vitest";
import { builtinTools } from "@/lib/tools/builtin";
import { inlineRefs, offeredSchema, SchemaReferenceError } from "@/lib/tools/schema";

const refs = /"\$(ref|defs|dynamicRef|recursiveRef)"|"definitions"/;

describe("schemas written out for the model", () => {
  it("leaves no reference in any built-in tool's parameters (zod's ids became $refs)", () => {
    for (const tool of builtinTools) expect(JSON.stringify(tool.parametersSchema), tool.name).not.toMatch(refs);
    const register = builtinTools.find((tool) => tool.name === "register_tool")!;
    expect(register.parametersSchema).toMatchObject({
      properties: { examples: { type: "array", items: { type: "object", required: ["input", "expected_output"] } } },
    });
  });

  it("inlines local pointers, keeps a reference's siblings, and leaves data and property names alone", () => {
    const schema = {
      type: "object",
      properties: {
        // a property may be named like a keyword; a default may hold a "$ref" key as data
        definitions: { $ref: "#/definitions/a~1b", description: "kept" },
        $defs: { $ref: "#/$defs/Any" },
        never: { $ref: "#/$defs/Nothing" },
        config: { type: "object", default: { $ref: "not followed" }, enum: [{ $ref: "#/x" }] },
      },
      definitions: { "a/b": { type: "string", description: "replaced" } },
      $defs: { Any: true, Nothing: false },
    };
    expect(inlineRefs(schema)).toEqual({
      type: "object",
      properties: {
        definitions: { type: "string", description: "kept" },
        $defs: {},
        never: { not: {} },
        config: { type: "object", default: { $ref: "not followed" }, enum: [{ $ref: "#/x" }] },
      },
    });
  });

  it("refuses what it cannot write out, saying where; offers a recursive stored schema with any value there", () => {
    const recursive = { type: "object", properties: { next: { $ref: "#" } } };
    expect(() => inlineRefs(recursive)).toThrow(SchemaReferenceError);
    expect(() => inlineRefs(recursive)).toThrow(/^\/properties\/next: \$ref "#" refers to itself/);
    expect(offeredSchema(recursive)).toEqual({ type: "object", properties: { next: {} } });
    expect(() => inlineRefs({ properties: { a: { $ref: "#/$defs/Missing" } } })).toThrow(/points to nothing/);
    expect(() => inlineRefs({ properties: { a: { $dynamicRef: "#node" } } })).toThrow(
      /\$dynamicRef cannot be written out/,
    );
    // A definition used twice at every level doubles per level: refused before it fills the memory.
    const $defs: Record<string, unknown> = { d0: { type: "string" } };
    for (let level = 1; level <= 30; level++)
      $defs[`d${level}`] = {
        type: "array",
        prefixItems: [{ $ref: `#/$defs/d${level - 1}` }, { $ref: `#/$defs/d${level - 1}` }],
      };
    const bomb = { type: "object", properties: { a: { $ref: "#/$defs/d30" } }, $defs };
    expect(() => inlineRefs(bomb)).toThrow(/over 20000 nodes/);
    expect(offeredSchema(bomb)).toBe(bomb);
  });
});
