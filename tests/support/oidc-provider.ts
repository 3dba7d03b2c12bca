import http from "node:http";
import type { AddressInfo } from "node:net";
import Provider from "oidc-provider";
import { freePort } from "./app-server";

/** A person at the provider: their claims as it knows them. */
export interface ProviderPerson {
  email: string;
  email_verified: boolean;
  name: string;
}

export const CLIENT = { id: "toolsmith", secret: "toolsmith-test-secret" };
/** Another application registered at the same provider, for ID tokens issued to someone else. */
export const OTHER_CLIENT = { id: "other-app", secret: "other-app-secret" };

/**
 * A real OpenID Connect provider (`oidc-provider`) on loopback, with its own login and consent pages (its
 * development interactions: any password is accepted for a known login). `swapIdToken`, when set, replaces the ID
 * token of its next token response, as a tampering network or a confused provider would.
 */
export class OidcProvider {
  readonly people = new Map<string, ProviderPerson>();
  issuer = "";
  swapIdToken?: string;
  private server?: http.Server;

  async start(redirectUri: string): Promise<void> {
    const port = await freePort();
    this.issuer = `http://127.0.0.1:${port}`;
    const provider = new Provider(this.issuer, {
      clients: [CLIENT, OTHER_CLIENT].map(({ id, secret }) => ({
        client_id: id,
        client_secret: secret,
        redirect_uris: [redirectUri],
        grant_types: ["authorization_code"],
        response_types: ["code"],
      })),
      claims: { openid: ["sub"], email: ["email", "email_verified"], profile: ["name"] },
      cookies: { keys: ["oidc-provider-test-key"] },
      findAccount: (_context, sub) => {
        const person = this.people.get(sub);
        return person ? { accountId: sub, claims: () => ({ sub, ...person }) } : undefined;
      },
    });
    // Its warnings about development interactions and an http issuer are this test's choices.
    provider.on("server_error", (_context, error) => console.error("oidc-provider:", error));
    const handle = provider.callback();
    this.server = http.createServer((request, response) => {
      if (request.method === "POST" && request.url === "/token" && this.swapIdToken) this.swapOnce(response);
      void handle(request, response);
    });
    await new Promise<void>((resolve) => this.server!.listen(port, "127.0.0.1", resolve));
  }

  private swapOnce(response: http.ServerResponse): void {
    const swapped = this.swapIdToken!;
    this.swapIdToken = undefined;
    const end = response.end.bind(response) as (body?: unknown) => http.ServerResponse;
    response.end = ((body?: unknown) => {
      const answer = JSON.parse(String(body));
      const replaced = JSON.stringify({ ...answer, id_token: swapped });
      response.setHeader("content-length", Buffer.byteLength(replaced));
      return end(replaced);
    }) as typeof response.end;
  }

  get port(): number {
    return (this.server!.address() as AddressInfo).port;
  }

  async stop(): Promise<void> {
    await new Promise<void>((resolve) => this.server?.close(() => resolve()));
  }
}

/**
 * A person's browser at the provider, over HTTP: from an authorization URL through the provider's login and consent
 * forms to the redirect back, which is returned (not followed).
 */
export async function signInAtProvider(authorizationUrl: string, login: string): Promise<URL> {
  const jar = new Map<string, string>();
  const request = async (url: string, init: RequestInit = {}) => {
    const headers = new Headers(init.headers);
    headers.set("cookie", [...jar].map(([name, value]) => `${name}=${value}`).join("; "));
    const response = await fetch(url, { ...init, headers, redirect: "manual" });
    for (const cookie of response.headers.getSetCookie()) {
      const [pair] = cookie.split(";");
      const equals = pair.indexOf("=");
      jar.set(pair.slice(0, equals), pair.slice(equals + 1));
    }
    return response;
  };
  const origin = new URL(authorizationUrl).origin;
  let response = await request(authorizationUrl);
  for (let hops = 0; hops < 10; hops++) {
    const location = response.headers.get("location");
    if (!location) throw new Error(`The provider answered ${response.status}: ${await response.text()}`);
    const next = new URL(location, origin);
    if (next.origin !== origin) return next;
    response = await request(next.href);
    if (response.status !== 200) continue;
    const page = await response.text();
    const action = /<form[^>]*action="([^"]+)"/.exec(page)?.[1];
    const prompt = /name="prompt" value="(\w+)"/.exec(page)?.[1];
    if (!action || !prompt) throw new Error(`No form on the provider's page: ${page}`);
    const form = new URLSearchParams({ prompt, ...(prompt === "login" ? { login, password: "any" } : {}) });
    response = await request(new URL(action.replace(/&amp;/g, "&"), origin).href, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: form,
    });
  }
  throw new Error("The provider redirected too many times");
}
