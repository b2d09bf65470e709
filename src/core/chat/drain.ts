/**
 * The drain of an instance that is shutting down (SIGTERM), as far as open event streams
 * go. Streams register here; when the drain begins, the streams of runs that execute on
 * another instance (followed through a shared store) end at once, each with a final SSE
 * `retry:` field, so that the client reconnects (through the load balancer, to another
 * instance) and resumes with `Last-Event-ID`. Streams of runs this instance executes stay
 * open while the turn may still finish within the grace period; whatever is left when the
 * drain ends is closed the same way.
 */

/** An open stream, as the drain sees it. */
export interface DrainableStream {
  /** True while the stream's run executes on this instance (it ends with its run). */
  local(): boolean;
  /** Ends the stream with a final `retry:` field of `retryMs`. */
  end(retryMs: number): void;
}

/** The open streams of one instance and whether it is draining. */
export class StreamDrain {
  private readonly streams = new Set<DrainableStream>();
  private began = false;

  /** `retryMs`: the reconnection delay sent to clients in the final `retry:` field. */
  constructor(readonly retryMs = 1000) {}

  /** True once the drain began: the instance takes no new turns and no new streams of runs executing elsewhere. */
  get draining(): boolean {
    return this.began;
  }

  /** Registers an open stream; returns the function that unregisters it. */
  register(stream: DrainableStream): () => void {
    this.streams.add(stream);
    return () => this.streams.delete(stream);
  }

  /** Begins the drain: every stream of a run executing elsewhere ends now. */
  begin(): void {
    this.began = true;
    for (const stream of [...this.streams]) if (!stream.local()) stream.end(this.retryMs);
  }

  /** Ends every stream still open (the end of the drain). */
  endAll(): void {
    this.began = true;
    for (const stream of [...this.streams]) stream.end(this.retryMs);
  }

  /** Number of streams open. */
  get size(): number {
    return this.streams.size;
  }
}
