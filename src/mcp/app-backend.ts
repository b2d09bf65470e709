/**
 * The in-process backend of the MCP surface: the App's services, acting for one node
 * key with the key's rights (API.md §3), exactly as the HTTP routes would.
 */
import type { App } from '../app.js';
import type { Action, McpKeyRecord, Principal } from '../core/auth/index.js';
import { decodeAttachments, decodeEvent, type Run } from '../core/chat/index.js';
import { isOrgError } from '../core/errors.js';
import { exportFolder } from '../core/skills/index.js';
import { ToolError, type OrgToolBackend, type StartedTurn, type TurnOutcome } from './backend.js';
import { outcomeOf } from './outcome.js';

/** The download URL of an artifact of a node. */
export function artifactUrl(base: string, structureId: string, roleId: string, name: string): string {
  return `${base}/api/org/structures/${structureId}/agents/${roleId}/artifacts/${encodeURIComponent(name)}`;
}

function started(run: Run, createdAt: string): StartedTurn {
  return {
    run_id: run.id,
    created_at: createdAt,
    follow: (listener) => run.subscribe(0, (encoded) => listener(decodeEvent(encoded), encoded.seq)),
    done: run.done.then(() => outcomeOf(run.id, run.decoded()) as TurnOutcome),
  };
}

/** A backend over `app` for the node of `key`. */
export function createAppBackend(app: App, key: McpKeyRecord, baseUrl?: string): OrgToolBackend {
  const principal: Principal = { kind: 'mcp', id: key.id, key };
  const structureId = key.structure_id;
  const authorize = (action: Action) => app.access.authorize(principal, action, structureId, key.role_id);
  const ownRun = async (runId: string) => {
    const where = await app.chat.locate(runId);
    return where !== undefined && where.structureId === structureId && where.nodeId === key.node_id;
  };
  const eventsOf = async (runId: string) => (await app.chat.replay(runId)).events.map(decodeEvent);

  return {
    identity: { id: key.id, structure_id: structureId, role_id: key.role_id, label: key.label },

    async startTurn(input) {
      authorize('chat');
      const run = await app.chat.send({
        structureId,
        roleId: key.role_id,
        message: input.message,
        attachments: decodeAttachments(input.attachments ?? []),
        origin: `mcp:${key.label || key.id}`,
        author: { kind: 'node_key', id: key.id, label: key.label || key.id },
        ...(input.traceContext ? { traceContext: input.traceContext } : {}),
      });
      return started(run, app.clock.now().toISOString());
    },

    async inspectTurn(runId) {
      authorize('read_history');
      if (!(await ownRun(runId))) return undefined;
      const replayed = await app.chat.replay(runId);
      const run = replayed.run;
      const events = replayed.events.map(decodeEvent);
      const first = events[0]?.timestamp ?? app.clock.now().toISOString();
      const last = events.at(-1)?.timestamp ?? first;
      const outcome = outcomeOf(runId, events);
      const status = run && !run.finished ? 'running' : outcome?.status === 'complete' ? 'complete' : outcome ? 'error' : 'running';
      return { run_id: runId, status, events: [...events], created_at: first, updated_at: last };
    },

    async awaitTurn(runId, signal) {
      authorize('read_history');
      if (!(await ownRun(runId))) return undefined;
      const live = app.chat.run(runId);
      if (live && !live.finished) {
        await new Promise<void>((resolve, reject) => {
          const onAbort = () => reject(new ToolError('stopped waiting for the turn'));
          if (signal?.aborted) return onAbort();
          signal?.addEventListener('abort', onAbort, { once: true });
          void live.done.then(() => {
            signal?.removeEventListener('abort', onAbort);
            resolve();
          });
        });
      }
      return outcomeOf(runId, await eventsOf(runId));
    },

    async cancelTurn(runId) {
      authorize('chat');
      if (!(await ownRun(runId))) throw new ToolError(`run ${runId} not found`);
      try {
        await app.chat.cancel(runId);
        return true;
      } catch (error) {
        if (isOrgError(error) && error.code === 'conflict') return false;
        throw error;
      }
    },

    async listSkills() {
      authorize('read');
      await app.skills.ready();
      return app.skills.list({ structureId });
    },

    async listPeers() {
      authorize('read');
      const detail = app.structures.detail(structureId);
      const roleOf = new Map(detail.agents.map((node) => [node.id, node.role_id]));
      const self = detail.agents.find((node) => node.id === key.node_id);
      if (!self) throw new ToolError(`node ${key.role_id} no longer exists`);
      return {
        self: { role_id: self.role_id, label: self.label, state: self.state, parent: self.parent_id ? (roleOf.get(self.parent_id) ?? null) : null },
        peers: detail.agents
          .filter((node) => node.id !== self.id)
          .map((node) => ({ role_id: node.role_id, label: node.label, state: node.state, parent: node.parent_id ? (roleOf.get(node.parent_id) ?? null) : null })),
      };
    },

    async searchSkills(query, limit) {
      authorize('read');
      await app.skills.ready();
      return app.skills.search(query, { structureId, limit: limit ?? 5 });
    },

    async readSkill(slug) {
      authorize('read');
      const skill = await app.skills.get(slug, structureId);
      if (!skill) throw new ToolError(`skill ${JSON.stringify(slug)} not found`);
      return { slug: skill.slug, frontmatter: { ...skill.frontmatter }, body: skill.body, steps: skill.steps };
    },

    async readArtifact(name) {
      authorize('read_history');
      try {
        const { info, stream } = await app.chat.shelfOf(structureId, key.node_id).open(name);
        const chunks: Buffer[] = [];
        for await (const chunk of stream) chunks.push(chunk as Buffer);
        return { name: info.name, content_type: info.content_type, data: new Uint8Array(Buffer.concat(chunks)) };
      } catch (error) {
        if (isOrgError(error) && (error.code === 'not_found' || error.code === 'invalid_request')) return undefined;
        throw error;
      }
    },

    artifactUrl: (name) => artifactUrl(baseUrl ?? app.publicUrl(), structureId, key.role_id, name),

    async completeSkills() {
      authorize('read');
      return app.skills
        .list({ structureId, statuses: ['complete'] })
        .map((entry) => entry.slug)
        .sort();
    },

    async skillFolder(slug) {
      authorize('read');
      const entry = app.skills.list({ structureId, statuses: ['complete'] }).find((candidate) => candidate.slug === slug);
      if (!entry) return undefined;
      return exportFolder(app.skills, slug, structureId);
    },
  };
}

