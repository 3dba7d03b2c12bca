import fs from "node:fs";
import { describe, expect, it } from "vitest";
import { sourceFiles } from "../support/source-files";

/** Where a JSON body is not one of the contract's answers: the error path, the OpenAPI document, a download. */
const NOT_ANSWERS = new Set([
  "lib/platform/errors.ts",
  "lib/http/route.ts",
  "app/api/openapi.json/route.ts",
  "lib/conversations/export.ts",
]);

describe("the API's answers", () => {
  it("are sent through answer(Schema, body), typed by the contract's schema", () => {
    const bare = [...sourceFiles("app"), ...sourceFiles("lib")].filter(
      (file) => !NOT_ANSWERS.has(file) && fs.readFileSync(file, "utf8").includes("Response.json("),
    );
    expect(bare).toEqual([]);
  });
});
