import { calculate } from "./calculate";
import { registerTool } from "./register-tool";
import { runCode } from "./run-code";

export const builtinTools = [registerTool, calculate, runCode];
