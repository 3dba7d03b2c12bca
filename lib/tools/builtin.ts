import { calculate } from "./calculate";
import { fetchUrl } from "./fetch-url";
import { listDir, readFile, writeFile } from "./files";
import { keyValueDelete, keyValueGet, keyValueSet } from "./key-value";
import { librarianGet, librarianQuery, librarianSearch, librarianStore } from "./librarian";
import { registerTool } from "./register-tool";
import { runCode } from "./run-code";
import { runCommand } from "./run-command";
import { sendEmail } from "./send-email";
import { webSearch } from "./web-search";
import { webhook } from "./webhook";
import type { AgentTool } from "./types";

/** The built-in and native tools; a run is offered those its profile allows. */
export const builtinTools: AgentTool[] = [
  registerTool,
  calculate,
  runCode,
  fetchUrl,
  keyValueGet,
  keyValueSet,
  keyValueDelete,
  readFile,
  writeFile,
  listDir,
  webhook,
  runCommand,
  webSearch,
  sendEmail,
  librarianStore,
  librarianGet,
  librarianQuery,
  librarianSearch,
];
