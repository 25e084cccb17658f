/**
 * A client's messages that must wait for the answer to an earlier one of its own (an `/admin` attempt,
 * checked asynchronously): they are handled once it is answered, in the order they came, so that a
 * `/give` sent right after `/admin <code>` runs as an admin's.
 */
export class HeldMessages<Client extends object> {
  private readonly held = new WeakMap<Client, (() => void)[]>();

  constructor(private readonly onFailure: (error: unknown) => void) {}

  /** Handles a message now, or after the answer its client's messages wait for. */
  handle(client: Client, handler: () => void): void {
    const queue = this.held.get(client);
    if (queue) queue.push(handler);
    else handler();
  }

  /** The client's next messages wait until `answered` settles. */
  holdUntil(client: Client, answered: Promise<void>): void {
    const queue: (() => void)[] = [];
    this.held.set(client, queue);
    void answered.catch(this.onFailure).then(() => {
      this.held.delete(client);
      for (const [index, handler] of queue.entries()) {
        // One of them held the rest again (another `/admin`): they wait for that one in turn.
        const next = this.held.get(client);
        if (next) {
          next.push(...queue.slice(index));
          return;
        }
        handler();
      }
    });
  }
}
