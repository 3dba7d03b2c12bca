import { findSharedConversation } from "@/lib/db/share-links";
import { notifications } from "@/lib/db/notifications";

/**
 * How often a stream open on a share link checks that the link still stands, whatever it is told: the word of a
 * revocation is best effort (an instance whose listener is reconnecting misses it).
 */
const RECHECK_MS = 5_000;

/**
 * Call `onRevoked` once the share link `token` of the conversation stops standing (revoked, or the conversation
 * deleted): at once when any instance announces a revocation of the conversation's link, within RECHECK_MS
 * otherwise. The token is checked, not the conversation, so a link revoked and made again still ends the old
 * token's streams. Returns the stop function.
 */
export function watchRevocation(token: string, conversationId: string, onRevoked: () => void): () => void {
  let stopped = false;
  const check = () =>
    void findSharedConversation(token).then(
      (conversation) => {
        if (conversation || stopped) return;
        stop();
        onRevoked();
      },
      (error) => console.error("Could not check a share link:", error),
    );
  const unsubscribe = notifications.subscribe("shares", (revoked) => revoked === conversationId && check());
  const recheck = setInterval(check, RECHECK_MS);
  const stop = () => {
    stopped = true;
    unsubscribe();
    clearInterval(recheck);
  };
  return stop;
}
