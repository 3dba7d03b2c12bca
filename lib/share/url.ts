/** The one place that builds a share link's address, on the server (from the public origin) and in the browser. */
export const shareUrl = (origin: string, token: string) => `${origin}/s/${token}`;
