import { constants } from "node:fs";
import fs from "node:fs/promises";
import { SNIFF_BYTES, sniffMimeType } from "./sniff";

/** The head of a file in a folder of ours: what its type is sniffed from (and a preview read). */
export async function readHead(file: string, bytes = SNIFF_BYTES): Promise<Uint8Array> {
  const handle = await fs.open(file, constants.O_RDONLY | constants.O_NOFOLLOW);
  try {
    const head = Buffer.alloc(bytes);
    const { bytesRead } = await handle.read(head, 0, bytes, 0);
    return head.subarray(0, bytesRead);
  } finally {
    await handle.close();
  }
}

/** The type of a file in a folder of ours, from its bytes (lib/files/sniff.ts). */
export async function sniffFile(file: string, name: string): Promise<string> {
  return sniffMimeType(await readHead(file), name);
}
