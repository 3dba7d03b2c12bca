import { describe, expect, it } from "vitest";
import { missingServerFlags } from "@/lib/server-runtime.mjs";

const node22 = new Set(["--experimental-async-context-frame", "--max-old-space-size"]);
const node20 = new Set(["--max-old-space-size"]);

describe("the server's Node flags", () => {
  it("asks for async context frames where the runtime has them behind a flag, and a heap cap", () => {
    expect(missingServerFlags({ env: {}, execArgv: [], version: "22.23.3", knownFlags: node22 })).toEqual(["--experimental-async-context-frame", "--max-old-space-size=384"]);
    expect(missingServerFlags({ env: {}, execArgv: [], version: "20.20.2", knownFlags: node20 })).toEqual(["--max-old-space-size=384"]);
    // The default from Node 24 on.
    expect(missingServerFlags({ env: {}, execArgv: [], version: "24.1.0", knownFlags: node22 })).toEqual(["--max-old-space-size=384"]);
  });

  it("keeps what the process was started with, on the command line or in NODE_OPTIONS", () => {
    const started = ["--experimental-async-context-frame", "--max-old-space-size=384"];
    expect(missingServerFlags({ env: {}, execArgv: started, version: "22.23.3", knownFlags: node22 })).toEqual([]);
    expect(missingServerFlags({ env: { NODE_OPTIONS: "--max-old-space-size=2048 --experimental-async-context-frame" }, execArgv: [], version: "22.23.3", knownFlags: node22 })).toEqual([]);
    // V8's spelling with underscores, and a flag turned off on purpose.
    expect(missingServerFlags({ env: { NODE_OPTIONS: "--max_old_space_size=4096 --no-experimental-async-context-frame" }, execArgv: [], version: "22.23.3", knownFlags: node22 })).toEqual([]);
  });

  it("takes the heap cap from TOOLSMITH_HEAP_MB, 0 for none, and refuses a value that is not a size", () => {
    expect(missingServerFlags({ env: { TOOLSMITH_HEAP_MB: "1024" }, execArgv: [], version: "20.20.2", knownFlags: node20 })).toEqual(["--max-old-space-size=1024"]);
    expect(missingServerFlags({ env: { TOOLSMITH_HEAP_MB: "0" }, execArgv: [], version: "20.20.2", knownFlags: node20 })).toEqual([]);
    expect(missingServerFlags({ env: { TOOLSMITH_HEAP_MB: "" }, execArgv: [], version: "20.20.2", knownFlags: node20 })).toEqual(["--max-old-space-size=384"]);
    expect(() => missingServerFlags({ env: { TOOLSMITH_HEAP_MB: "lots" }, execArgv: [], version: "20.20.2", knownFlags: node20 })).toThrow(/TOOLSMITH_HEAP_MB must be a whole number/);
  });
});
