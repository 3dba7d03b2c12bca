import { config } from "@/lib/settings/config";

type RequestLike = Pick<Request, "url" | "headers">;

/**
 * The origin a person used to reach the app: TOOLSMITH_PUBLIC_URL when set; otherwise the request's own host and
 * protocol, or a reverse proxy's forwarded ones only when TOOLSMITH_TRUST_PROXY=1 (anyone can send those headers).
 */
export function publicOrigin(request: RequestLike): string {
  if (config.web.publicUrl) return config.web.publicUrl;
  const forwarded = (name: string) =>
    config.web.trustProxy ? request.headers.get(name)?.split(",")[0].trim() : undefined;
  const host = forwarded("x-forwarded-host") ?? request.headers.get("host") ?? new URL(request.url).host;
  // `next start` serves plain http; Next derives request.url's protocol from X-Forwarded-Proto, which anyone can send.
  const protocol = forwarded("x-forwarded-proto") ?? "http";
  return `${protocol}://${host}`;
}

/**
 * Whether a browser sent this request from a page of another origin. Fetch Metadata decides when the browser sends
 * it (cross-site, or same-site from a sibling host, is foreign); older browsers are judged by their Origin.
 * Scripts that send neither are not a browser acting for someone else.
 */
export function isForeignRequest(request: RequestLike): boolean {
  const site = request.headers.get("sec-fetch-site");
  if (site !== null) return site === "cross-site" || site === "same-site";
  const origin = request.headers.get("origin");
  return origin !== null && origin !== publicOrigin(request);
}
