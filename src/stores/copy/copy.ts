/**
 * Copies the service state of one backend into another (`org migrate`), kind by kind,
 * through the storage interfaces. Each record keeps its id, and a record the target
 * already has is left as it is, so a copy that was cut short is completed by running it
 * again and a second full run changes nothing.
 */
import { Buffer } from 'node:buffer';
import type { Readable } from 'node:stream';
import { FrameBatch, runText, type AgentEndRecord, type StoredMessage } from '../../core/chat/index.js';
import type { Clock } from '../../core/util/index.js';
import type { StructureRecord } from '../../core/structures/types.js';
import type { OrgState } from './state.js';

/** Kinds of state, in the order they are copied. */
export const KINDS = ['users', 'keys', 'invites', 'structures', 'log entries', 'runs', 'artifacts', 'audit entries', 'owed replies', 'webhooks', 'webhook deliveries'] as const;
export type Kind = (typeof KINDS)[number];

/** Per kind: records copied, and records the target already had. */
export type CopyReport = Record<Kind, { copied: number; kept: number }>;

/** Messages of a node read per page. */
const PAGE = 500;
/** The most log entries a structure's log is read with (all of them, in practice). */
const ALL = Number.MAX_SAFE_INTEGER;

async function bytesOf(stream: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk as string));
  return Buffer.concat(chunks);
}

/** Every message of a node, oldest first. */
async function allMessages(state: OrgState, where: { structureId: string; nodeId: string }): Promise<StoredMessage[]> {
  const newestFirst: StoredMessage[] = [];
  for (let before: string | undefined; ; ) {
    const page = await state.chat.messages(where, { limit: PAGE, ...(before ? { before } : {}) });
    newestFirst.push(...page);
    if (page.length < PAGE) break;
    before = page.at(-1)!.id;
  }
  return newestFirst.reverse();
}

/** Every node a structure has had (archived ones keep their history and artifacts). */
function nodesOf(record: StructureRecord): { id: string; role_id: string }[] {
  return [...record.agents, ...record.archive];
}

/** Copies everything `from` holds that `to` does not; `progress` hears of each kind as it is done. */
export async function copyState(from: OrgState, to: OrgState, progress: (kind: Kind, counts: { copied: number; kept: number }) => void = () => undefined): Promise<CopyReport> {
  const report = Object.fromEntries(KINDS.map((kind) => [kind, { copied: 0, kept: 0 }])) as CopyReport;
  const count = (kind: Kind, copied: boolean) => void report[kind][copied ? 'copied' : 'kept']++;

  for (const user of await from.users.list()) {
    const present = await to.users.byId(user.id);
    if (!present) await to.users.insert(user);
    count('users', !present);
  }
  progress('users', report.users);

  const keyIds = new Set((await to.keys.list()).map((key) => key.id));
  for (const key of await from.keys.list()) {
    if (!keyIds.has(key.id)) await to.keys.insert(key);
    count('keys', !keyIds.has(key.id));
  }
  progress('keys', report.keys);

  const inviteIds = new Set((await to.invites.list()).map((invite) => invite.id));
  for (const invite of await from.invites.list()) {
    if (!inviteIds.has(invite.id)) await to.invites.insert(invite);
    count('invites', !inviteIds.has(invite.id));
  }
  progress('invites', report.invites);

  const structures = await from.structures.loadAll();
  for (const { record, seq } of structures) {
    const present = await to.structures.load(record.id);
    if (!present) await to.structures.restore(record, seq, (await from.structures.journal(record.id)).filter((entry) => entry.seq <= seq));
    count('structures', !present);
  }
  progress('structures', report.structures);

  for (const { record } of structures) {
    const have = new Set((await to.log.read(record.id, ALL)).map((entry) => entry.id));
    const entries = (await from.log.read(record.id, ALL)).reverse();
    const missing = entries.filter((entry) => !have.has(entry.id));
    await to.log.append(record.id, missing);
    report['log entries'].copied += missing.length;
    report['log entries'].kept += entries.length - missing.length;
  }
  progress('log entries', report['log entries']);

  for (const { record } of structures) {
    for (const node of nodesOf(record)) await copyRuns(from, to, { structureId: record.id, nodeId: node.id, roleId: node.role_id }, (copied) => count('runs', copied));
  }
  progress('runs', report.runs);

  for (const { record } of structures) {
    for (const node of nodesOf(record)) await copyArtifacts(from, to, record.id, node.id, (copied) => count('artifacts', copied));
  }
  progress('artifacts', report.artifacts);

  // Oldest first, so the target reads them back in the same order.
  const audited = new Set((await to.audit.read({ limit: ALL })).map((entry) => entry.id));
  for (const entry of (await from.audit.read({ limit: ALL })).reverse()) {
    if (!audited.has(entry.id)) await to.audit.append(entry);
    count('audit entries', !audited.has(entry.id));
  }
  progress('audit entries', report['audit entries']);

  // Replies whose turn ended before they were sent: the target's first start sends them.
  const owedThere = new Set((await to.replies.pending()).map((reply) => reply.run_id));
  for (const reply of await from.replies.pending()) {
    if (owedThere.has(reply.run_id)) {
      count('owed replies', false);
      continue;
    }
    // A run the target already answered is left as it is by `owe`: it is not owed again.
    await to.replies.owe(reply);
    count('owed replies', (await to.replies.pending()).some((there) => there.run_id === reply.run_id));
  }
  progress('owed replies', report['owed replies']);

  await copyWebhooks(from, to, (kind, copied) => count(kind, copied));
  progress('webhooks', report.webhooks);
  progress('webhook deliveries', report['webhook deliveries']);
  return report;
}

/** Copies webhooks (with their secrets) and their deliveries, oldest first; pending ones stay pending. */
async function copyWebhooks(from: OrgState, to: OrgState, count: (kind: 'webhooks' | 'webhook deliveries', copied: boolean) => void): Promise<void> {
  for (const webhook of await from.webhooks.list()) {
    const present = await to.webhooks.get(webhook.id);
    if (!present) await to.webhooks.add(webhook);
    count('webhooks', !present);
    const have = new Set((await to.webhooks.deliveries(webhook.id, { limit: ALL })).map((delivery) => delivery.id));
    const deliveries = (await from.webhooks.deliveries(webhook.id, { limit: ALL })).reverse();
    await to.webhooks.enqueue(deliveries.filter((delivery) => !have.has(delivery.id)));
    for (const delivery of deliveries) count('webhook deliveries', !have.has(delivery.id));
  }
}

/** Copies a node's runs (the user message, the agent message and the events of each), oldest first. */
async function copyRuns(from: OrgState, to: OrgState, node: { structureId: string; nodeId: string; roleId: string }, count: (copied: boolean) => void): Promise<void> {
  const messages = await allMessages(from, node);
  const users = new Map(messages.filter((message) => message.sender === 'user').map((message) => [message.run_id, message]));
  for (const agent of messages.filter((message) => message.sender === 'agent')) {
    const user = users.get(agent.run_id);
    if (!user) continue;
    if (await to.chat.locate(agent.run_id)) {
      count(false);
      continue;
    }
    const where = { runId: agent.run_id, ...node };
    await to.chat.startRun(
      where,
      { id: user.id, run_id: user.run_id, text: user.text, attachments: user.attachments, created_at: user.created_at, ...(user.origin ? { origin: user.origin } : {}), ...(user.delegated_by ? { delegated_by: user.delegated_by } : {}), ...(user.author ? { author: user.author } : {}) },
      { id: agent.id, run_id: agent.run_id, created_at: agent.created_at },
    );
    const events = await from.chat.events(agent.run_id, 0);
    const writer = to.chat.eventWriter(where);
    try {
      if (events.length > 0) await writer.write([FrameBatch.of(events)]);
    } finally {
      await writer.close();
    }
    // A run still open at the source stays open: the target's start closes it as interrupted.
    if (agent.status !== 'running') {
      const end: AgentEndRecord = {
        run_id: agent.run_id,
        status: agent.status,
        // A source that kept the start of a long text has the whole of it in the events.
        text: agent.text_truncated ? runText(events) : agent.text,
        summary: agent.summary,
        artifacts: agent.artifacts,
        completed_at: agent.completed_at ?? agent.created_at,
      };
      await to.chat.endRun(where, end);
    }
    count(true);
  }
}

/** Copies a node's artifacts, keeping their dates and the runs they came from. */
async function copyArtifacts(from: OrgState, to: OrgState, structureId: string, nodeId: string, count: (copied: boolean) => void): Promise<void> {
  let at = new Date(0);
  const clock: Clock = { now: () => at };
  const source = from.shelf(structureId, nodeId, clock);
  const target = to.shelf(structureId, nodeId, clock);
  const have = new Set((await target.list()).map((info) => info.name));
  const infos = (await source.list()).reverse();
  for (const info of infos) {
    if (have.has(info.name)) {
      count(false);
      continue;
    }
    const { stream } = await source.open(info.name);
    const data = await bytesOf(stream);
    at = new Date(info.created_at);
    await target.write(info.name, data, info.content_type, info.run_id && info.source ? { runId: info.run_id, source: info.source } : undefined);
    count(true);
  }
}
