import { z } from "zod";
import { config } from "@/lib/settings/config";
import { domainGuard, toolRules, guardedFetch, type FetchReply } from "@/lib/sandbox/fetch-guard";
import { defineTool } from "@/lib/tools/define-tool";
import { requestFailure } from "./fetch-url";

const RESPONSE_CHARS = 2000;

/** The reply's body: parsed when it says it is JSON and is whole; else its text, cut at RESPONSE_CHARS. */
function responseOf(reply: FetchReply): { response: unknown; truncated: boolean } {
  const truncated = reply.truncated || reply.body.length > RESPONSE_CHARS;
  if (!truncated && /\bjson\b/i.test(reply.headers["content-type"] ?? "")) {
    try {
      return { response: JSON.parse(reply.body) as unknown, truncated };
    } catch {
      // Not JSON after all: the text is the answer.
    }
  }
  return { response: reply.body.slice(0, RESPONSE_CHARS), truncated };
}

/** Off unless a profile lists it: it sends data out of the app. */
export const webhook = defineTool({
  name: "webhook",
  description:
    "Send a JSON payload to a public http(s) URL (POST or PUT). Returns status_code and response, the reply's " +
    `body: JSON when the reply is JSON, else text; a reply over ${RESPONSE_CHARS} characters is cut, as text, ` +
    "with truncated: true.",
  inputSchema: z.strictObject({
    url: z.string().max(4096).describe("http or https URL."),
    payload: z.unknown().describe("Any JSON value; sent as the request body."),
    method: z.enum(["POST", "PUT"]).default("POST"),
  }),
  async execute({ url, payload, method }, { signal, settings }) {
    try {
      const reply = await guardedFetch(
        { url, method, headers: { "content-type": "application/json" }, body: JSON.stringify(payload ?? null) },
        { limits: config.fetch, signal, ...domainGuard(settings, toolRules("webhook")) },
      );
      return {
        ok: true,
        output: { status_code: reply.status, ok: reply.status >= 200 && reply.status < 300, ...responseOf(reply) },
      };
    } catch (error) {
      return requestFailure("webhook", method, url, error);
    }
  },
});
