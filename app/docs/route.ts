import { headers } from "next/headers";

/**
 * The API reference: the OpenAPI document rendered by Swagger UI, served from this app (no CDN) under the
 * response's CSP nonce. A plain HTML answer rather than a React page, since Swagger UI owns its DOM.
 */
export async function GET() {
  const nonce = (await headers()).get("x-nonce") ?? "";
  const html = `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <title>API reference · Toolsmith</title>
  <link rel="stylesheet" href="/docs/assets/swagger-ui.css">
</head>
<body>
  <main id="swagger-ui"></main>
  <script nonce="${nonce}" src="/docs/assets/swagger-ui-bundle.js"></script>
  <script nonce="${nonce}" src="/docs/assets/init.js"></script>
</body>
</html>`;
  return new Response(html, { headers: { "content-type": "text/html; charset=utf-8" } });
}
