/**
 * What the chat engine tells observers about its runs: metrics, traces and webhooks
 * listen here instead of the engine knowing any of them. Each callback runs
 * synchronously where the engine is; an observer that throws is reported through the
 * engine's `onError` and never disturbs the run.
 */
import type { DelegationRefusal } from '../schemas/delegation.js';
import type { Run } from './run.js';
import type { RunLocation } from './store.js';

/**
 * W3C trace context fields as a sender handed them over (`traceparent`, optionally
 * `tracestate`), opaque to the core.
 */
export type TraceCarrier = Readonly<Record<string, string>>;

/** How a run ended. */
export type RunOutcome = 'complete' | 'error' | 'cancelled';

/** One observer of runs; every member is optional. */
export interface RunObserver {
  /**
   * A run was accepted and waits for its node's turn. Called in the async context of
   * whoever sent the message (a request, an inbound e-mail), so a tracer can take its
   * parent there, unless the sender gave its trace context with the message
   * (`traceContext`, e.g. an MCP request's `_meta`), which then comes first.
   * Subscribe to `run` to see its events.
   */
  queued?(run: Run, traceContext?: TraceCarrier): void;
  /** The run's turn starts on the runtime named `runtime` (local, llm, container, …). */
  started?(run: Run, runtime: string): void;
  /** The run ended (its terminal event is published and durable). */
  finished?(run: Run, outcome: RunOutcome, runtime: string | undefined): void;
  /**
   * A running turn (at `parent`) delegated: `started` when the delegated run exists, or
   * the kind of refusal (API.md §10).
   */
  delegated?(parent: RunLocation, outcome: 'started' | DelegationRefusal): void;
  /** A node turned `working` (a turn started) or `idle` (its last turn ended). */
  nodeState?(where: RunLocation, state: 'working' | 'idle'): void;
  /**
   * Trace context to hand to the runtime with the turn (W3C `traceparent` and
   * `tracestate`), so a container's spans join the run's trace.
   */
  traceContext?(run: Run): Record<string, string> | undefined;
  /**
   * Runs the run's turn inside `fn` (a tracer makes the run's span current there, so the
   * searches and calls of the turn join it). Must call `fn` once and return its result.
   */
  within?<T>(run: Run, fn: () => Promise<T>): Promise<T>;
}

/** The outcome of a finished run from its terminal event. */
export function outcomeOf(run: Run): RunOutcome {
  const last = run.lastEvent;
  if (!last || last.type === 'complete') return last ? 'complete' : 'error';
  const message = (JSON.parse(last.json) as { content?: { message?: unknown } }).content?.message;
  return message === 'cancelled' ? 'cancelled' : 'error';
}

/** Fans calls out to a changing set of observers, each failure reported, never thrown. */
export class RunObservers {
  private readonly observers = new Set<RunObserver>();

  constructor(private readonly onError: (error: unknown) => void) {}

  /** Adds an observer; returns its remover. */
  add(observer: RunObserver): () => void {
    this.observers.add(observer);
    return () => this.observers.delete(observer);
  }

  /** Calls `method` of every observer that has it. */
  notify<K extends Exclude<keyof RunObserver, 'traceContext' | 'within'>>(method: K, ...args: Parameters<NonNullable<RunObserver[K]>>): void {
    for (const observer of this.observers) {
      const callback = observer[method] as ((...values: unknown[]) => void) | undefined;
      if (!callback) continue;
      try {
        callback.apply(observer, args);
      } catch (error) {
        this.onError(error);
      }
    }
  }

  /** Runs `fn` inside every observer's `within` (nested in the order they were added). */
  within<T>(run: Run, fn: () => Promise<T>): Promise<T> {
    let wrapped: () => Promise<T> = fn;
    for (const observer of this.observers) {
      if (!observer.within) continue;
      const inner = wrapped;
      wrapped = () => observer.within!(run, inner);
    }
    return wrapped();
  }

  /** The first trace context any observer gives for a run. */
  traceContext(run: Run): Record<string, string> | undefined {
    for (const observer of this.observers) {
      try {
        const context = observer.traceContext?.(run);
        if (context) return context;
      } catch (error) {
        this.onError(error);
      }
    }
    return undefined;
  }
}
