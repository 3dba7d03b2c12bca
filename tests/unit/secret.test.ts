import { describe, expect, it } from "vitest";
import { sealer, UnsealError } from "@/lib/settings/secret";

const secret = (text: string) => () => Buffer.from(text);
const headers = JSON.stringify({ Authorization: "Bearer s3cr3t-token", "X-Api-Key": "k-123" });

describe("sealed values (AES-256-GCM under a key derived from the app's secret)", () => {
  it("opens what it sealed, for the same row, and never holds the value in clear", () => {
    const seal = sealer("toolsmith/test", secret("one"));
    const sealed = seal.seal(headers, "row-1");
    expect(sealed).toMatch(/^v1\.[\w-]+$/);
    expect(sealed).not.toContain("s3cr3t");
    expect(Buffer.from(sealed.slice(3), "base64url").toString("latin1")).not.toContain("s3cr3t");
    expect(seal.open(sealed, "row-1")).toBe(headers);
    // a fresh IV each time: the same value never seals the same way twice
    expect(seal.seal(headers, "row-1")).not.toBe(sealed);
  });

  it("refuses a value altered anywhere, one copied to another row, and one sealed under another secret or purpose", () => {
    const seal = sealer("toolsmith/test", secret("one"));
    const sealed = seal.seal(headers, "row-1");
    const bytes = Buffer.from(sealed.slice(3), "base64url");
    for (const at of [0, 12, 28, bytes.length - 1]) {
      const altered = Buffer.from(bytes);
      altered[at] ^= 1;
      expect(() => seal.open(`v1.${altered.toString("base64url")}`, "row-1"), `byte ${at}`).toThrow(UnsealError);
    }
    expect(() => seal.open(sealed, "row-2")).toThrow(UnsealError);
    expect(() => sealer("toolsmith/test", secret("two")).open(sealed, "row-1")).toThrow(UnsealError);
    expect(() => sealer("toolsmith/other", secret("one")).open(sealed, "row-1")).toThrow(UnsealError);
  });

  it("reads only the versions it knows, so that a rotated key can come beside this one", () => {
    const seal = sealer("toolsmith/test", secret("one"));
    const sealed = seal.seal(headers, "row-1");
    expect(() => seal.open(sealed.replace(/^v1\./, "v2."), "row-1")).toThrow(/known version/);
    expect(() => seal.open(headers, "row-1")).toThrow(UnsealError);
    expect(() => seal.open("v1.AAAA", "row-1")).toThrow(/too short/);
  });
});
