/** Work by key, one at a time per key in the order it was asked for; a key with nothing waiting holds nothing. */
export class Turns {
  private readonly queues = new Map<string, Promise<unknown>>();

  run<T>(key: string, work: () => Promise<T>): Promise<T> {
    const turn = (this.queues.get(key) ?? Promise.resolve()).then(work, work);
    const settled = turn.catch(() => {});
    this.queues.set(key, settled);
    void settled.then(() => this.queues.get(key) === settled && this.queues.delete(key));
    return turn;
  }
}
