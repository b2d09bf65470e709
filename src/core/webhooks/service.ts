/**
 * Completion webhooks of structures (API.md §9): registrations per structure, and a
 * durable outbox of deliveries. Each event a webhook subscribes to becomes a delivery
 * with an id of its own, stored before the first attempt; attempts are signed POSTs,
 * retried on the schedule for about 24 hours; every attempt is logged.
 *
 * Deliveries are sent by a pump: it claims what is due from the store (so that where
 * instances share a database each attempt is made by one of them), sends it, settles it,
 * and sleeps until the next delivery is due. It runs when an event is queued, when an
 * attempt settles, at that timer, and whenever {@link WebhookService.poke} is called
 * (the shared backend's heartbeat: retries queued by others, claims of dead instances).
 * Pending deliveries outlive the process, so a restart loses none.
 */
import type { Dispatcher } from 'undici';
import { invalid, notFound } from '../errors.js';
import type { CreatedWebhook, Delivery, DeliveryStatus, StoredDelivery, Webhook, WebhookEventType } from '../schemas/webhooks.js';
import { errorFields, uuid, type Clock, type Log } from '../util/index.js';
import { DEFAULT_RETRY_SCHEDULE, nextAttemptAt } from './schedule.js';
import { postDelivery, type AttemptResult } from './sender.js';
import { newWebhookSecret, signatureHeaders } from './signature.js';
import type { ClaimedDelivery, StoredWebhook, WebhookStore } from './store.js';

/** Attempts in flight at once per process. */
const MAX_IN_FLIGHT = 16;
/** The longest a timer may wait (setTimeout's limit); the pump then looks again. */
const MAX_TIMER_MS = 2 ** 31 - 1;

/** Options of the service. */
export interface WebhookServiceOptions {
  store: WebhookStore;
  clock: Clock;
  log: Log;
  /** Delays before each retry in ms (default {@link DEFAULT_RETRY_SCHEDULE}, about 24 h in all). */
  retrySchedule?: readonly number[];
  /** Sends one attempt (default: an HTTP POST through `dispatcher` with a 10 s timeout). */
  send?: (url: string, headers: Record<string, string>, body: string) => Promise<AttemptResult>;
  /** The egress gate's dispatcher for deliveries (default: undici's global one, which checks nothing). */
  dispatcher?: () => Promise<Dispatcher>;
}

/** What an event says; `data` is the event's own payload. */
export interface WebhookEvent {
  type: WebhookEventType;
  structureId: string;
  data: Record<string, unknown>;
}

/** The webhooks of every structure and their outbox. */
export class WebhookService {
  private readonly store: WebhookStore;
  private readonly inflight = new Set<Promise<void>>();
  private readonly queueing = new Set<Promise<void>>();
  private readonly schedule: readonly number[];
  private readonly send: NonNullable<WebhookServiceOptions['send']>;
  private readonly listeners = new Set<(delivery: Delivery) => void>();
  private timer: NodeJS.Timeout | undefined;
  /** The pump's current run, and whether another was asked for meanwhile. */
  private pumping: Promise<void> | undefined;
  private again = false;
  private closed = false;

  constructor(private readonly options: WebhookServiceOptions) {
    this.store = options.store;
    this.schedule = options.retrySchedule ?? DEFAULT_RETRY_SCHEDULE;
    const dispatcher = options.dispatcher;
    this.send = options.send ?? ((url, headers, body) => postDelivery(url, headers, body, dispatcher ? { dispatcher } : {}));
  }

  /** Starts sending what the outbox holds (deliveries left pending by an earlier process included). */
  start(): void {
    this.poke();
  }

  /** Registers a webhook for a structure; the answer carries its signing secret, once. */
  async create(structureId: string, input: { url: string; events: WebhookEventType[]; description?: string }): Promise<CreatedWebhook> {
    assertUrl(input.url);
    const webhook: StoredWebhook = {
      id: uuid(),
      structure_id: structureId,
      url: input.url,
      events: [...new Set(input.events)],
      description: input.description ?? '',
      created_at: this.options.clock.now().toISOString(),
      secret: newWebhookSecret(),
    };
    await this.store.add(webhook);
    return { ...publicOf(webhook), secret: webhook.secret };
  }

  /** The webhooks of a structure, oldest first, without secrets. */
  async list(structureId: string): Promise<Webhook[]> {
    return (await this.store.list(structureId)).map(publicOf);
  }

  /** Removes a webhook: its pending deliveries are dropped with its log. 404 when not of this structure. */
  async remove(structureId: string, webhookId: string): Promise<void> {
    if (!(await this.store.remove(structureId, webhookId))) throw notFound(`webhook ${webhookId} not found`);
  }

  /** The deliveries of a webhook, newest first. */
  async deliveries(structureId: string, webhookId: string, query: { limit?: number; status?: DeliveryStatus } = {}): Promise<Delivery[]> {
    const webhook = await this.store.get(webhookId);
    if (webhook?.structure_id !== structureId) throw notFound(`webhook ${webhookId} not found`);
    const found = await this.store.deliveries(webhookId, { limit: query.limit ?? 50, ...(query.status !== undefined ? { status: query.status } : {}) });
    return found.map(logEntryOf);
  }

  /** Hears every change of a delivery (after it is stored); returns the remover. For tests and metrics. */
  onDelivery(listener: (delivery: Delivery) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /**
   * Queues an event for every webhook of its structure that subscribes to its type: each
   * delivery is stored before its first attempt starts.
   */
  emit(event: WebhookEvent): Promise<void> {
    if (this.closed) return Promise.resolve();
    const queued = this.enqueue(event);
    this.queueing.add(queued);
    const settled = () => {
      this.queueing.delete(queued);
    };
    queued.then(settled, settled);
    return queued;
  }

  private async enqueue(event: WebhookEvent): Promise<void> {
    const targets = (await this.store.list(event.structureId)).filter((webhook) => webhook.events.includes(event.type));
    if (targets.length === 0) return;
    const now = this.options.clock.now();
    const deliveries = targets.map((webhook): StoredDelivery => {
      const id = `msg_${uuid().replace(/-/g, '')}`;
      return {
        id,
        webhook_id: webhook.id,
        event_type: event.type,
        status: 'pending',
        response_code: null,
        attempts: [],
        created_at: now.toISOString(),
        next_attempt_at: now.toISOString(),
        body: JSON.stringify({ id, type: event.type, timestamp: now.toISOString(), data: { structure_id: event.structureId, ...event.data } }),
      };
    });
    await this.store.enqueue(deliveries);
    for (const delivery of deliveries) this.notify(delivery);
    this.poke();
  }

  /**
   * Asks the pump to look for due deliveries now (runs coalesce). Called on events and
   * settlements here, and by the shared backend's heartbeat.
   */
  poke(): void {
    if (this.closed) return;
    if (this.pumping) {
      this.again = true;
      return;
    }
    this.pumping = this.pump()
      .catch((error: unknown) => this.options.log('error', 'webhook: reading the outbox failed (trying again at the next event)', errorFields(error)))
      .finally(() => {
        this.pumping = undefined;
        if (this.again) {
          this.again = false;
          this.poke();
        }
      });
  }

  /** Claims and starts what is due (within the in-flight bound), then sleeps until the next due delivery. */
  private async pump(): Promise<void> {
    for (;;) {
      const room = MAX_IN_FLIGHT - this.inflight.size;
      if (this.closed || room <= 0) return;
      const claimed = await this.store.claim(this.options.clock.now(), room);
      for (const item of claimed) this.start_(item);
      if (claimed.length < room) break;
    }
    if (this.closed) return;
    const due = await this.store.nextDue();
    this.arm(due);
  }

  private arm(due: Date | null): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    if (due === null || this.closed) return;
    const delay = Math.min(MAX_TIMER_MS, Math.max(0, due.getTime() - this.options.clock.now().getTime()));
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.poke();
    }, delay);
    this.timer.unref();
  }

  private start_(claimed: ClaimedDelivery): void {
    const attempt = this.attempt(claimed).catch((error: unknown) => this.options.log('error', 'webhook: delivery attempt failed unexpectedly', errorFields(error)));
    this.inflight.add(attempt);
    const settled = () => {
      this.inflight.delete(attempt);
      this.poke();
    };
    attempt.then(settled, settled);
  }

  /** Stores events still being queued, stops the pump, waits for attempts in flight; pending deliveries stay in the outbox. */
  async close(): Promise<void> {
    await Promise.allSettled([...this.queueing]);
    this.closed = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    await this.pumping;
    while (this.inflight.size > 0) await Promise.all([...this.inflight]);
  }

  private async attempt({ webhook, delivery }: ClaimedDelivery): Promise<void> {
    const started = this.options.clock.now();
    const headers = signatureHeaders(webhook.secret, delivery.id, Math.floor(started.getTime() / 1000), delivery.body);
    const result = await this.send(webhook.url, headers, delivery.body);
    const ok = result.responseCode !== null && result.responseCode >= 200 && result.responseCode < 300;
    if (result.cause) this.options.log('info', 'webhook: the receiver did not answer', { webhook_id: webhook.id, delivery_id: delivery.id, cause: result.cause });
    // Counted from the attempt's start: the log does not tell how long a failure took.
    const retryAt = ok ? undefined : nextAttemptAt(this.schedule, delivery.attempts.length + 1, result.responseCode === null ? started : this.options.clock.now());
    const updated = await this.store.settle(webhook.id, delivery.id, {
      attempt: { at: started.toISOString(), response_code: result.responseCode, error: result.error, duration_ms: result.durationMs },
      status: ok ? 'delivered' : retryAt ? 'pending' : 'failed',
      next_attempt_at: retryAt ? retryAt.toISOString() : null,
    });
    if (!updated) return; // removed meanwhile
    if (updated.status === 'failed') {
      this.options.log('warn', 'webhook: delivery given up after the retry schedule', { webhook_id: webhook.id, delivery_id: delivery.id, attempts: updated.attempts.length });
    }
    this.notify(updated);
  }

  private notify(delivery: StoredDelivery): void {
    const entry = logEntryOf(delivery);
    for (const listener of this.listeners) {
      try {
        listener(entry);
      } catch (error) {
        this.options.log('error', 'webhook: a delivery listener failed', errorFields(error));
      }
    }
  }
}

function publicOf(webhook: StoredWebhook): Webhook {
  const { secret: _secret, ...listed } = webhook;
  return listed;
}

function logEntryOf(delivery: StoredDelivery): Delivery {
  const { body: _body, ...entry } = delivery;
  return structuredClone(entry);
}

function assertUrl(value: string): void {
  let url: URL | undefined;
  try {
    url = new URL(value);
  } catch {
    url = undefined;
  }
  if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:')) {
    throw invalid('url must be an http(s) URL', [{ path: 'url', message: 'must be an http(s) URL' }]);
  }
  if (url.username || url.password) throw invalid('url must not carry credentials', [{ path: 'url', message: 'must not carry credentials' }]);
}
