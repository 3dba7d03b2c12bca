/**
 * Which run holds each conversation: at most one at a time. An interface, so that running several servers on one
 * database can replace the in-process map with a lease in the database.
 */
export interface RunClaims<Holder> {
  /** Take the conversation for `holder`; false when another holder has it. */
  claim(conversationId: string, holder: Holder): boolean;
  /** Give it back; a holder that no longer has it changes nothing. */
  release(conversationId: string, holder: Holder): void;
  holder(conversationId: string): Holder | undefined;
}

/** Claims for one server process. Synchronous, so two requests cannot both win. */
export class InProcessClaims<Holder> implements RunClaims<Holder> {
  private readonly holders = new Map<string, Holder>();

  claim(conversationId: string, holder: Holder): boolean {
    if (this.holders.has(conversationId)) return false;
    this.holders.set(conversationId, holder);
    return true;
  }

  release(conversationId: string, holder: Holder): void {
    if (this.holders.get(conversationId) === holder) this.holders.delete(conversationId);
  }

  holder(conversationId: string): Holder | undefined {
    return this.holders.get(conversationId);
  }
}
