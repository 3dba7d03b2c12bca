import { config, isDevelopment } from "@/lib/settings/config";

/**
 * The Content-Security-Policy of every response: scripts only from this app and only with this response's nonce
 * (Next puts it on its own scripts), images only from here, data: URLs and the configured image hosts, and no
 * framing. Development adds 'unsafe-eval', which React's dev tooling needs.
 */
export function contentSecurityPolicy(nonce: string): string {
  return [
    "default-src 'self'",
    `script-src 'self' 'nonce-${nonce}' 'strict-dynamic'${isDevelopment() ? " 'unsafe-eval'" : ""}`,
    // React sets style attributes (panel width, virtual lists); stylesheets come from here.
    "style-src 'self' 'unsafe-inline'",
    ["img-src 'self' data:", ...config.web.imageOrigins].join(" "),
    "font-src 'self' data:",
    "connect-src 'self'",
    "object-src 'none'",
    "base-uri 'self'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ].join("; ");
}

/** Two years, the preload list's minimum; sent only when the app is served over https. */
export const STRICT_TRANSPORT_SECURITY = "max-age=63072000; includeSubDomains";
