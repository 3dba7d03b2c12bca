import { calculate } from "./calculate";
import { registerTool } from "./register-tool";
import { runCode } from "./run-code";
import type { AgentTool } from "./types";

export const builtinTools: AgentTool[] = [registerTool, calculate, runCode];
