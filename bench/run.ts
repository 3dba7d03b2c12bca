import { benchCancel, benchRegistration, benchSandbox } from "./sandbox";
import { benchLibrarian } from "./librarian";
import { benchNativeTools } from "./native-tools";
import { benchStream } from "./stream";
import { benchTools } from "./tools";
import { benchUi } from "./ui";

const only = process.argv[2];
console.log(`# Toolsmith benchmark (${new Date().toISOString()}, Node ${process.version})`);
if (!only || only === "sandbox") await benchSandbox();
if (!only || only === "registration") await benchRegistration();
if (!only || only === "cancel") await benchCancel();
if (!only || only === "stream") await benchStream();
if (!only || only === "tools") await benchTools();
if (!only || only === "native") await benchNativeTools();
if (!only || only === "librarian") await benchLibrarian();
if (!only || only === "ui") await benchUi();
process.exit(0);
