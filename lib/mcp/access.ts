import { localhostAllowedHostnames, validateHostHeader, validateOriginHeader } from "@modelcontextprotocol/server";
import { requireToken } from "@/lib/http/access";
import { ApiError } from "@/lib/platform/errors";
import { config } from "@/lib/settings/config";

/**
 * Who an MCP request acts for, checked in this order: its Host and Origin must name this app (its public URL, or
 * the loopback addresses), else 403, so that a page of another site whose name resolves here (DNS rebinding)
 * reaches nothing; then it must carry a valid personal API token, else 401. The identity cookie alone is not
 * enough: MCP clients are programs, and a browser's cookie goes with requests that other sites make it send.
 */
export async function requireMcpCaller(request: Request): Promise<string> {
  const hostnames = allowedHostnames();
  const host = validateHostHeader(requestHost(request), hostnames);
  if (!host.ok) {
    throw new ApiError(
      403,
      "forbidden_host",
      `${host.message}. This server answers MCP requests sent to ${hostnames.join(", ")} only; set ` +
        "TOOLSMITH_PUBLIC_URL to the address your clients use.",
    );
  }
  const origin = validateOriginHeader(request.headers.get("origin"), hostnames);
  if (!origin.ok) {
    throw new ApiError(
      403,
      "forbidden_origin",
      `${origin.message}. Pages of other sites cannot call this server; MCP clients send no Origin.`,
    );
  }
  return requireToken(request, "This MCP server");
}

/** The loopback names and, when it is set, the host name of TOOLSMITH_PUBLIC_URL. */
function allowedHostnames(): string[] {
  const loopback = localhostAllowedHostnames();
  return config.web.publicUrl ? [...loopback, new URL(config.web.publicUrl).hostname] : loopback;
}

/** The host the client addressed: a trusted reverse proxy's X-Forwarded-Host, else Host (lib/http/origin.ts). */
function requestHost(request: Request): string | null {
  const forwarded = config.web.trustProxy ? request.headers.get("x-forwarded-host")?.split(",")[0].trim() : undefined;
  return forwarded || request.headers.get("host");
}
