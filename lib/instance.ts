import os from "node:os";
import { randomUUID } from "node:crypto";

/**
 * This process's name among the instances of one database: a run's row names the instance that executes it (its
 * lease), and that instance's writes for the run are stored only while the row still names it.
 */
const globalInstance = globalThis as unknown as { toolsmithInstanceId?: string };
export const instanceId: string = (globalInstance.toolsmithInstanceId ??= `${os.hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`);
