import { createHash, generateKeyPairSync, randomBytes, sign, type KeyObject } from "node:crypto";
import { isoCBOR } from "@simplewebauthn/server/helpers";

const b64url = (bytes: Uint8Array) => Buffer.from(bytes).toString("base64url");
const sha256 = (data: Uint8Array | string) => createHash("sha256").update(data).digest();

/** Flags of authenticator data: user present, user verified, attested credential data included. */
const UP = 0x01;
const UV = 0x04;
const AT = 0x40;

/**
 * A software authenticator, as a browser's would answer navigator.credentials: one ES256 key per credential,
 * "none" attestation, a signature counter. `origin` is what the browser would put in clientDataJSON, and the
 * relying party's id is its host.
 */
export class SoftAuthenticator {
  readonly credentials = new Map<string, { privateKey: KeyObject; counter: number; userHandle: string }>();

  constructor(private readonly origin: string) {}

  private get rpIdHash(): Buffer {
    return sha256(new URL(this.origin).hostname);
  }

  private clientData(type: "webauthn.create" | "webauthn.get", challenge: string, origin: string): Buffer {
    return Buffer.from(JSON.stringify({ type, challenge, origin, crossOrigin: false }));
  }

  /** The answer to registration options (generateRegistrationOptions' JSON): a new credential. */
  create(options: { challenge: string; user: { id: string } }, origin = this.origin) {
    const { privateKey, publicKey } = generateKeyPairSync("ec", { namedCurve: "P-256" });
    const jwk = publicKey.export({ format: "jwk" });
    const cose = isoCBOR.encode(
      new Map<number, number | Uint8Array>([
        [1, 2],
        [3, -7],
        [-1, 1],
        [-2, Buffer.from(jwk.x!, "base64url")],
        [-3, Buffer.from(jwk.y!, "base64url")],
      ]),
    );
    const id = randomBytes(16);
    const length = Buffer.alloc(2);
    length.writeUInt16BE(id.length);
    const authData = Buffer.concat([
      this.rpIdHash,
      Buffer.from([UP | UV | AT]),
      Buffer.alloc(4),
      Buffer.alloc(16),
      length,
      id,
      Buffer.from(cose),
    ]);
    const attestationObject = isoCBOR.encode(
      new Map<string, unknown>([
        ["fmt", "none"],
        ["attStmt", new Map()],
        ["authData", new Uint8Array(authData)],
      ]) as never,
    );
    this.credentials.set(b64url(id), { privateKey, counter: 0, userHandle: options.user.id });
    return {
      id: b64url(id),
      rawId: b64url(id),
      type: "public-key",
      response: {
        clientDataJSON: b64url(this.clientData("webauthn.create", options.challenge, origin)),
        attestationObject: b64url(attestationObject),
        transports: ["internal"],
      },
      clientExtensionResults: {},
      authenticatorAttachment: "platform",
    };
  }

  /**
   * The answer to sign-in options with the credential `id`: its counter goes up by one unless `counter` says what
   * to claim; `signWith` signs with another credential's key (a forgery); `origin` is what the browser reports.
   */
  get(
    options: { challenge: string },
    id: string,
    { counter, signWith, origin = this.origin }: { counter?: number; signWith?: string; origin?: string } = {},
  ) {
    const credential = this.credentials.get(id)!;
    credential.counter = counter ?? credential.counter + 1;
    const count = Buffer.alloc(4);
    count.writeUInt32BE(credential.counter);
    const authenticatorData = Buffer.concat([this.rpIdHash, Buffer.from([UP | UV]), count]);
    const clientDataJSON = this.clientData("webauthn.get", options.challenge, origin);
    const key = (signWith ? this.credentials.get(signWith)! : credential).privateKey;
    const signature = sign("sha256", Buffer.concat([authenticatorData, sha256(clientDataJSON)]), key);
    return {
      id,
      rawId: id,
      type: "public-key",
      response: {
        clientDataJSON: b64url(clientDataJSON),
        authenticatorData: b64url(authenticatorData),
        signature: b64url(signature),
        userHandle: credential.userHandle,
      },
      clientExtensionResults: {},
      authenticatorAttachment: "platform",
    };
  }
}
