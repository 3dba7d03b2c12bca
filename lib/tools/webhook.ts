import { z } from "zod";
import { config } from "@/lib/settings/config";
import { guardedFetch } from "@/lib/sandbox/fetch-guard";
import { defineTool } from "./define-tool";
import { domainRefusal } from "./fetch-url";

const REPLY_CHARS = 2000;

/** Off unless a profile lists it: it sends data out of the app. */
export const webhook = defineTool({
  name: "webhook",
  description:
    "Send a JSON payload to a public http(s) URL (POST or PUT) and get the status and the start of the reply.",
  inputSchema: z.strictObject({
    url: z.string().max(4096).describe("http or https URL."),
    payload: z.unknown().describe("Any JSON value; sent as the request body."),
    method: z.enum(["POST", "PUT"]).default("POST"),
  }),
  async execute({ url, payload, method }, { signal, settings }) {
    try {
      const reply = await guardedFetch(
        { url, method, headers: { "content-type": "application/json" }, body: JSON.stringify(payload ?? null) },
        { limits: config.fetch, signal, allowHost: (host) => domainRefusal(host, settings) },
      );
      return {
        ok: true,
        output: {
          status_code: reply.status,
          ok: reply.status >= 200 && reply.status < 300,
          reply: reply.body.slice(0, REPLY_CHARS),
        },
      };
    } catch (error) {
      return { ok: false, error: `webhook ${method} ${url.slice(0, 200)} failed: ${(error as Error).message}` };
    }
  },
});
