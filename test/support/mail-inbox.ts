/**
 * Messages a mail transport delivered, in delivery order, as raw RFC 5322 bytes. The
 * receiving side of a transport (an SMTP server's DATA, a file appearing in an outbox
 * folder) calls `deliver`; a test awaits `next()`, which resolves on that event.
 */
export class MailInbox {
  private readonly queue: Buffer[] = [];
  private readonly waiting: ((raw: Buffer) => void)[] = [];

  /** Hands a delivered message to the first waiting `next()`, or queues it. */
  deliver(raw: Buffer): void {
    const waiter = this.waiting.shift();
    if (waiter) waiter(raw);
    else this.queue.push(raw);
  }

  /** The next delivered message: at once when one is queued, else when one arrives. */
  next(): Promise<Buffer> {
    const queued = this.queue.shift();
    if (queued) return Promise.resolve(queued);
    return new Promise((resolve) => this.waiting.push(resolve));
  }

  /** Messages delivered and not yet taken. */
  get pending(): number {
    return this.queue.length;
  }
}
