/**
 * Completion webhooks of structures (API.md §9): registrations per structure, and a
 * durable outbox of deliveries. Each event a webhook subscribes to becomes a delivery
 * with an id of its own, written to the outbox before the first attempt; attempts are
 * signed POSTs, retried on the schedule for about 24 hours; every attempt is logged.
 * Pending deliveries are read back at start, so a restart loses none.
 *
 * Files: `<state>/webhooks.json` (registrations with their secrets, mode 0600) and
 * `<state>/webhooks/<webhook_id>.json` (its deliveries, newest first, bounded).
 */
import { join } from 'node:path';
import { rm } from 'node:fs/promises';
import { invalid, notFound } from '../errors.js';
import type { CreatedWebhook, Delivery, DeliveryStatus, StoredDelivery, Webhook, WebhookEventType } from '../schemas/webhooks.js';
import { JsonFile, mkdirSafe } from '../storage/index.js';
import { errorFields, uuid, type Clock, type Log } from '../util/index.js';
import { DEFAULT_RETRY_SCHEDULE, nextAttemptAt } from './schedule.js';
import { postDelivery, type AttemptResult } from './sender.js';
import { newWebhookSecret, signatureHeaders } from './signature.js';

/** A registration as stored: the listed record and its signing secret. */
type StoredWebhook = Webhook & { secret: string };

/** Finished deliveries kept per webhook (pending ones are always kept). */
const KEEP_FINISHED = 200;

/** Options of the service. */
export interface WebhookServiceOptions {
  /** The state folder (`<home>/.org`). */
  stateDir: string;
  clock: Clock;
  log: Log;
  /** Delays before each retry in ms (default {@link DEFAULT_RETRY_SCHEDULE}, about 24 h in all). */
  retrySchedule?: readonly number[];
  /** Sends one attempt (default: an HTTP POST with a 10 s timeout). */
  send?: (url: string, headers: Record<string, string>, body: string) => Promise<AttemptResult>;
}

/** What an event says; `data` is the event's own payload. */
export interface WebhookEvent {
  type: WebhookEventType;
  structureId: string;
  data: Record<string, unknown>;
}

/** The webhooks of every structure and their outbox. */
export class WebhookService {
  private readonly registry: JsonFile<{ webhooks: StoredWebhook[] }>;
  private readonly outboxes = new Map<string, JsonFile<{ deliveries: StoredDelivery[] }>>();
  private readonly timers = new Map<string, NodeJS.Timeout>();
  private readonly inflight = new Set<Promise<void>>();
  private readonly queueing = new Set<Promise<void>>();
  private readonly schedule: readonly number[];
  private readonly send: NonNullable<WebhookServiceOptions['send']>;
  private readonly listeners = new Set<(delivery: Delivery) => void>();
  private closed = false;

  constructor(private readonly options: WebhookServiceOptions) {
    this.registry = new JsonFile(join(options.stateDir, 'webhooks.json'), () => ({ webhooks: [] }));
    this.schedule = options.retrySchedule ?? DEFAULT_RETRY_SCHEDULE;
    this.send = options.send ?? ((url, headers, body) => postDelivery(url, headers, body));
  }

  private get dir(): string {
    return join(this.options.stateDir, 'webhooks');
  }

  /** Loads registrations and outboxes, and schedules every pending delivery. */
  async load(): Promise<void> {
    await this.registry.load();
    await mkdirSafe(this.dir);
    for (const webhook of this.registry.current.webhooks) {
      const outbox = await this.outbox(webhook.id);
      for (const delivery of outbox.current.deliveries) if (delivery.status === 'pending') this.schedule_(webhook.id, delivery);
    }
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
    await this.registry.update((draft) => {
      draft.webhooks.push(webhook);
    });
    await this.outbox(webhook.id);
    return { ...publicOf(webhook), secret: webhook.secret };
  }

  /** The webhooks of a structure, oldest first, without secrets. */
  list(structureId: string): Webhook[] {
    return this.registry.current.webhooks.filter((webhook) => webhook.structure_id === structureId).map(publicOf);
  }

  /** Removes a webhook: its pending deliveries are dropped with its log. 404 when not of this structure. */
  async remove(structureId: string, webhookId: string): Promise<void> {
    this.find(structureId, webhookId);
    await this.registry.update((draft) => {
      draft.webhooks = draft.webhooks.filter((webhook) => webhook.id !== webhookId);
    });
    const outbox = this.outboxes.get(webhookId);
    this.outboxes.delete(webhookId);
    for (const delivery of outbox?.current.deliveries ?? []) this.cancelTimer(delivery.id);
    await rm(join(this.dir, `${webhookId}.json`), { force: true });
  }

  /** The deliveries of a webhook, newest first. */
  async deliveries(structureId: string, webhookId: string, query: { limit?: number; status?: DeliveryStatus } = {}): Promise<Delivery[]> {
    this.find(structureId, webhookId);
    const outbox = await this.outbox(webhookId);
    return outbox.current.deliveries
      .filter((delivery) => query.status === undefined || delivery.status === query.status)
      .slice(0, query.limit ?? 50)
      .map(logEntryOf);
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
    const targets = this.registry.current.webhooks.filter((webhook) => webhook.structure_id === event.structureId && webhook.events.includes(event.type));
    const now = this.options.clock.now();
    for (const webhook of targets) {
      const id = `msg_${uuid().replace(/-/g, '')}`;
      const body = JSON.stringify({ id, type: event.type, timestamp: now.toISOString(), data: { structure_id: event.structureId, ...event.data } });
      const delivery: StoredDelivery = {
        id,
        webhook_id: webhook.id,
        event_type: event.type,
        status: 'pending',
        response_code: null,
        attempts: [],
        created_at: now.toISOString(),
        next_attempt_at: now.toISOString(),
        body,
      };
      const outbox = await this.outbox(webhook.id);
      await outbox.update((draft) => {
        draft.deliveries.unshift(delivery);
        prune(draft.deliveries);
      });
      this.notify(delivery);
      this.schedule_(webhook.id, delivery);
    }
  }

  /** Stores events still being queued, stops scheduling, waits for attempts in flight; pending deliveries stay in the outbox. */
  async close(): Promise<void> {
    await Promise.allSettled([...this.queueing]);
    this.closed = true;
    for (const timer of this.timers.values()) clearTimeout(timer);
    this.timers.clear();
    await Promise.all([...this.inflight]);
  }

  private find(structureId: string, webhookId: string): StoredWebhook {
    const webhook = this.registry.current.webhooks.find((candidate) => candidate.id === webhookId && candidate.structure_id === structureId);
    if (!webhook) throw notFound(`webhook ${webhookId} not found`);
    return webhook;
  }

  private async outbox(webhookId: string): Promise<JsonFile<{ deliveries: StoredDelivery[] }>> {
    let outbox = this.outboxes.get(webhookId);
    if (!outbox) {
      outbox = new JsonFile(join(this.dir, `${webhookId}.json`), () => ({ deliveries: [] }));
      this.outboxes.set(webhookId, outbox);
      await outbox.load();
    }
    return outbox;
  }

  private schedule_(webhookId: string, delivery: Delivery): void {
    if (this.closed || delivery.next_attempt_at === null) return;
    this.cancelTimer(delivery.id);
    const delay = Math.max(0, Date.parse(delivery.next_attempt_at) - this.options.clock.now().getTime());
    const timer = setTimeout(() => {
      this.timers.delete(delivery.id);
      const attempt = this.attempt(webhookId, delivery.id).catch((error: unknown) => this.options.log('error', 'webhook: delivery attempt failed unexpectedly', errorFields(error)));
      this.inflight.add(attempt);
      const settled = () => {
        this.inflight.delete(attempt);
      };
      attempt.then(settled, settled);
    }, delay);
    timer.unref();
    this.timers.set(delivery.id, timer);
  }

  private cancelTimer(deliveryId: string): void {
    const timer = this.timers.get(deliveryId);
    if (timer) clearTimeout(timer);
    this.timers.delete(deliveryId);
  }

  private async attempt(webhookId: string, deliveryId: string): Promise<void> {
    const webhook = this.registry.current.webhooks.find((candidate) => candidate.id === webhookId);
    const outbox = this.outboxes.get(webhookId);
    const delivery = outbox?.current.deliveries.find((candidate) => candidate.id === deliveryId);
    if (!webhook || !outbox || !delivery || delivery.status !== 'pending') return;
    const started = this.options.clock.now();
    const headers = signatureHeaders(webhook.secret, delivery.id, Math.floor(started.getTime() / 1000), delivery.body);
    const result = await this.send(webhook.url, headers, delivery.body);
    if (!this.outboxes.has(webhookId)) return; // removed meanwhile
    const ok = result.responseCode !== null && result.responseCode >= 200 && result.responseCode < 300;
    const failures = delivery.attempts.length + 1;
    const retryAt = ok ? undefined : nextAttemptAt(this.schedule, failures, this.options.clock.now());
    const updated = await outbox.update((draft) => {
      const stored = draft.deliveries.find((candidate) => candidate.id === deliveryId);
      if (!stored) return undefined;
      stored.attempts.push({ at: started.toISOString(), response_code: result.responseCode, error: result.error, duration_ms: result.durationMs });
      stored.response_code = result.responseCode;
      stored.status = ok ? 'delivered' : retryAt ? 'pending' : 'failed';
      stored.next_attempt_at = retryAt ? retryAt.toISOString() : null;
      return structuredClone(stored);
    });
    if (!updated) return;
    if (updated.status === 'failed') {
      this.options.log('warn', 'webhook: delivery given up after the retry schedule', { webhook_id: webhookId, delivery_id: deliveryId, attempts: updated.attempts.length });
    }
    this.notify(updated);
    if (updated.status === 'pending') this.schedule_(webhookId, updated);
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

/** Keeps every pending delivery and the newest finished ones. */
function prune(deliveries: StoredDelivery[]): void {
  let finished = 0;
  for (let i = 0; i < deliveries.length; i += 1) {
    if (deliveries[i]!.status === 'pending') continue;
    finished += 1;
    if (finished > KEEP_FINISHED) {
      deliveries.splice(i, 1);
      i -= 1;
    }
  }
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
