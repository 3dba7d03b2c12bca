/**
 * The app's secret (TOOLSMITH_SECRET, or one generated once and kept in the data directory), and what is derived
 * from it: identity cookies are signed with it (lib/http/identity.ts), and values kept at rest are sealed with keys
 * derived from it, one per purpose. Several instances must share TOOLSMITH_SECRET to read each other's.
 */
import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { dataDirectory, identitySecret } from "./config";

let cachedSecret: Buffer | undefined;

/** TOOLSMITH_SECRET, or a random secret generated once and kept in the data directory. */
export function appSecret(): Buffer {
  if (cachedSecret) return cachedSecret;
  const configured = identitySecret();
  if (configured) return (cachedSecret = Buffer.from(configured));
  const file = path.join(dataDirectory(), "identity-secret");
  fs.mkdirSync(path.dirname(file), { recursive: true });
  try {
    fs.writeFileSync(file, randomBytes(32).toString("base64url"), { flag: "wx", mode: 0o600 });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
  }
  return (cachedSecret = Buffer.from(fs.readFileSync(file, "utf8").trim()));
}

/** A sealed value that cannot be opened: tampered with, sealed for another row, or under another secret. */
export class UnsealError extends Error {}

const IV_BYTES = 12;
const TAG_BYTES = 16;
/** The format and key of what `seal` writes: a later key (a rotated secret) gets the next version beside it. */
const VERSION = "v1";

/**
 * AES-256-GCM under a key of its own derived (HKDF-SHA256) from the app's secret with `purpose` as HKDF's info, so
 * that no two uses share a key. A sealed value is `v1.` and base64url of IV, tag and ciphertext. `context` (a row's
 * id, say) is authenticated, not stored: a value copied into another row does not open there.
 */
export function sealer(purpose: string, secret: () => Buffer = appSecret) {
  let key: Buffer | undefined;
  const keyOf = () => (key ??= Buffer.from(hkdfSync("sha256", secret(), Buffer.alloc(0), purpose, 32)));
  return {
    seal(plaintext: string, context: string): string {
      const iv = randomBytes(IV_BYTES);
      const cipher = createCipheriv("aes-256-gcm", keyOf(), iv).setAAD(Buffer.from(context));
      const body = Buffer.concat([cipher.update(plaintext, "utf8"), cipher.final()]);
      return `${VERSION}.${Buffer.concat([iv, cipher.getAuthTag(), body]).toString("base64url")}`;
    },
    open(sealed: string, context: string): string {
      const dot = sealed.indexOf(".");
      if (sealed.slice(0, dot) !== VERSION) throw new UnsealError(`not a sealed value of a known version`);
      const bytes = Buffer.from(sealed.slice(dot + 1), "base64url");
      if (bytes.length < IV_BYTES + TAG_BYTES) throw new UnsealError("a sealed value too short to be one");
      try {
        const decipher = createDecipheriv("aes-256-gcm", keyOf(), bytes.subarray(0, IV_BYTES))
          .setAAD(Buffer.from(context))
          .setAuthTag(bytes.subarray(IV_BYTES, IV_BYTES + TAG_BYTES));
        return Buffer.concat([decipher.update(bytes.subarray(IV_BYTES + TAG_BYTES)), decipher.final()]).toString(
          "utf8",
        );
      } catch {
        throw new UnsealError("the sealed value does not open: altered, another row's, or sealed under another secret");
      }
    },
  };
}
