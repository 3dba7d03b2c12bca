import { describe, expect, it } from "vitest";
import { registrationLanguage, toolLanguage, TOOL_LANGUAGES } from "@/components/tools/tool-language";

describe("toolLanguage", () => {
  it("is the tool's language, and JavaScript when a tool or an older log has none", () => {
    expect(toolLanguage({ code: "def run(inputs):\n    return 1", language: "python" })).toBe("python");
    expect(toolLanguage({ code: "function run() {}", language: "javascript" })).toBe("javascript");
    expect(toolLanguage({ code: "function run() {}" })).toBe("javascript");
  });

  it("offers JavaScript first, the default", () => {
    expect(TOOL_LANGUAGES).toEqual(["javascript", "python"]);
  });
});

describe("registrationLanguage", () => {
  it("reads Python from both forms of registration", () => {
    expect(registrationLanguage({ name: "f", python_code: "def run(inputs):\n    return 1" })).toBe("python");
    expect(registrationLanguage({ name: "f", code: "def run(inputs): ...", language: "python" })).toBe("python");
  });

  it("is JavaScript otherwise, whatever the input is", () => {
    expect(registrationLanguage({ name: "f", code: "function run() {}" })).toBe("javascript");
    expect(registrationLanguage({ code: "function run() {}", language: "javascript" })).toBe("javascript");
    expect(registrationLanguage({ code: "x", language: "ruby" })).toBe("javascript");
    expect(registrationLanguage({ python_code: 42 })).toBe("javascript");
    for (const input of [undefined, null, "python", 3, []]) expect(registrationLanguage(input)).toBe("javascript");
  });
});
