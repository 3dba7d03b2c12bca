import { standingShareTokens, type ShareVisibility } from "@/lib/db/queries/share-links";
import { notifications } from "@/lib/db/driver/notifications";
import { processWide } from "@/lib/platform/process-wide";

/**
 * How often the streams open on share links check that their links still stand, whatever they are told: the word
 * of a revocation is best effort (an instance whose listener is reconnecting misses it).
 */
const RECHECK_MS = 5_000;

interface Watched {
  conversationId: string;
  /** What the streams were let in under: a change cuts them, and each reconnection is checked anew. */
  visibility: ShareVisibility;
  cuts: Set<() => void>;
}

/**
 * This instance's streams open on share links, by token. One query checks them all: every RECHECK_MS, and for the
 * tokens of a conversation whose link any instance announces revoked, so that the streams a stranger opens on a
 * link cost no query each.
 */
class ShareWatch {
  private readonly byToken = new Map<string, Watched>();
  private recheck?: NodeJS.Timeout;
  private unsubscribe?: () => void;

  /**
   * Call `cut` once the share link `token` of the conversation stops standing as it stood when the stream was let in
   * (revoked, the conversation deleted, or its visibility changed). The token is checked, not the conversation, so a
   * link revoked and made again still ends the old token's streams. Returns the stop function.
   */
  watch(token: string, conversationId: string, visibility: ShareVisibility, cut: () => void): () => void {
    let watched = this.byToken.get(token);
    // Streams let in under the old visibility are cut by the check the change announced, if not already.
    if (watched?.visibility !== visibility) {
      if (watched) this.cutAll(token, watched);
      watched = { conversationId, visibility, cuts: new Set() };
      this.byToken.set(token, watched);
    }
    watched.cuts.add(cut);
    this.start();
    // A revocation between the route's check of the token and this watch was announced to no one watching it.
    void this.check([token]);
    return () => {
      watched.cuts.delete(cut);
      if (watched.cuts.size === 0 && this.byToken.get(token) === watched) this.byToken.delete(token);
      if (this.byToken.size === 0) this.stop();
    };
  }

  private start(): void {
    this.unsubscribe ??= notifications.subscribe(
      "shares",
      (conversationId) =>
        void this.check(
          [...this.byToken].filter(([, watched]) => watched.conversationId === conversationId).map(([token]) => token),
        ),
    );
    if (!this.recheck) {
      this.recheck = setInterval(() => void this.check([...this.byToken.keys()]), RECHECK_MS);
      this.recheck.unref();
    }
  }

  private stop(): void {
    this.unsubscribe?.();
    this.unsubscribe = undefined;
    clearInterval(this.recheck);
    this.recheck = undefined;
  }

  private cutAll(token: string, watched: Watched): void {
    this.byToken.delete(token);
    for (const cut of watched.cuts) cut();
  }

  /** Cut the streams of the tokens that no longer stand as they did. */
  private async check(tokens: string[]): Promise<void> {
    if (tokens.length === 0) return;
    try {
      const standing = await standingShareTokens(tokens);
      for (const token of tokens) {
        const watched = this.byToken.get(token);
        if (watched && standing.get(token) !== watched.visibility) this.cutAll(token, watched);
      }
      if (this.byToken.size === 0) this.stop();
    } catch (error) {
      console.error("Could not check share links:", error);
    }
  }
}

export const shareWatch: ShareWatch = processWide("shareWatch", () => new ShareWatch());
