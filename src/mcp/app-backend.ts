/**
 * The in-process backend of the MCP tools: the App's services, acting for one node key
 * with the key's rights (API.md §3), exactly as the HTTP routes would.
 */
import type { App } from '../app.js';
import type { McpKeyRecord, Principal } from '../core/auth/index.js';
import type { Action } from '../core/auth/index.js';
import { decodeAttachments, decodeEvent, isTerminal, type Run } from '../core/chat/index.js';
import { visibleTo } from '../core/skills/index.js';
import { ToolError, type OrgToolBackend, type TurnOutcome, type TurnWatcher } from './backend.js';

/** The download URL of an artifact of a node. */
export function artifactUrl(base: string, structureId: string, roleId: string, name: string): string {
  return `${base}/api/org/structures/${structureId}/agents/${roleId}/artifacts/${encodeURIComponent(name)}`;
}

/**
 * Waits for the end of `run`, reporting each event; rejects with a ToolError when
 * `signal` aborts (its reason, when a string, says why). The run itself goes on.
 */
export function followRun(run: Run, watcher: TurnWatcher = {}): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    let unsubscribe: () => void = () => undefined;
    const onAbort = () => {
      unsubscribe();
      const reason: unknown = watcher.signal?.reason;
      reject(new ToolError(`${typeof reason === 'string' ? reason : 'stopped waiting'}; the turn goes on (run ${run.id})`));
    };
    if (watcher.signal?.aborted) return onAbort();
    watcher.signal?.addEventListener('abort', onAbort, { once: true });
    unsubscribe = run.subscribe(0, (encoded) => {
      watcher.onEvent?.(decodeEvent(encoded), encoded.seq);
      if (isTerminal(encoded)) {
        watcher.signal?.removeEventListener('abort', onAbort);
        resolve();
      }
    });
  });
}

/** Options of {@link createAppBackend}. */
export interface AppBackendOptions {
  /** Aborting it ends every `do` still waiting, with the abort reason as message (revocation, shutdown). */
  stop?: AbortSignal;
}

/** A backend over `app` for the node of `key`. */
export function createAppBackend(app: App, key: McpKeyRecord, options: AppBackendOptions = {}): OrgToolBackend {
  const principal: Principal = { kind: 'mcp', id: key.id, key };
  const structureId = key.structure_id;
  const authorize = (action: Action) => app.access.authorize(principal, action, structureId, key.role_id);

  return {
    async runTurn(input, watcher) {
      authorize('chat');
      const run = await app.chat.send({
        structureId,
        roleId: key.role_id,
        message: input.message,
        attachments: decodeAttachments(input.attachments ?? []),
        origin: `mcp:${key.label || key.id}`,
      });
      const signals = [watcher?.signal, options.stop].filter((signal): signal is AbortSignal => signal !== undefined);
      const signal = signals.length > 1 ? AbortSignal.any(signals) : signals[0];
      await followRun(run, { ...watcher, ...(signal ? { signal } : {}) });
      const terminal = run.terminal;
      const outcome: TurnOutcome = { run_id: run.id, status: 'error', summary: 'the turn ended without a result', artifacts: [], artifact_urls: [] };
      if (terminal?.type === 'complete') {
        outcome.status = 'complete';
        outcome.summary = terminal.content.summary;
        outcome.artifacts = terminal.content.artifacts;
        outcome.artifact_urls = terminal.content.artifacts.map((name) => artifactUrl(app.publicUrl(), structureId, key.role_id, name));
      } else if (terminal?.type === 'error') {
        outcome.summary = terminal.content.message;
      }
      return outcome;
    },

    async listSkills() {
      authorize('read');
      return app.skills.list({ structureId });
    },

    async listPeers() {
      authorize('read');
      const detail = app.structures.detail(structureId);
      const roleOf = new Map(detail.agents.map((node) => [node.id, node.role_id]));
      const self = detail.agents.find((node) => node.id === key.node_id);
      if (!self) throw new ToolError(`node ${key.role_id} no longer exists`);
      return {
        self: { role_id: self.role_id, label: self.label },
        peers: detail.agents
          .filter((node) => node.id !== self.id)
          .map((node) => ({
            role_id: node.role_id,
            label: node.label,
            state: node.state,
            parent: node.parent_id ? (roleOf.get(node.parent_id) ?? null) : null,
          })),
      };
    },

    async searchSkills(query, limit) {
      authorize('read');
      return app.skills.search(query, { structureId, limit: limit ?? 5 });
    },

    async readSkill(slug) {
      authorize('read');
      const skill = await app.skills.get(slug);
      if (!skill || !visibleTo(skill.frontmatter.structure_id, structureId)) throw new ToolError(`skill ${JSON.stringify(slug)} not found`);
      return { slug: skill.slug, frontmatter: { ...skill.frontmatter }, body: skill.body, steps: skill.steps };
    },
  };
}
