/**
 * The headers of every answer, whoever gives it: Next (next.config.ts), and server.mjs for what it answers itself.
 * Share links carry their token in the URL, so the Referer never takes it to another site.
 */
export const EVERY_ANSWER_HEADERS = {
  "referrer-policy": "same-origin",
  "x-content-type-options": "nosniff",
  "x-frame-options": "DENY",
};
