/**
 * The local runtime (API.md §6.1): a deterministic playbook runner used when a node has
 * no container and no LLM is configured. It looks the request up in the skill library
 * and walks the chosen skill's steps, calling the skill's `tool_url` for each step.
 * When no skill covers a request it asks to be taught, and a `/teach` reply with the
 * steps becomes a learned draft (teach.ts): learning without an LLM or code. A step with
 * lines `Delegate to <role_id>.` is handed to those nodes (local-delegation.ts).
 */
import type { Dispatcher } from 'undici';
import type { AgentRuntime, Emit, Turn, TurnSkill, TurnTools } from './types.js';
import { delegatedMilestone, delegatedReportLines, delegateStep, stepDelegation, whoDidWhat, type DelegatedWork } from './local-delegation.js';
import { askSummary, lessonOf, lessonSkill, TEACH_COMMAND } from './teach.js';
import { callTool } from './tool-call.js';
import { excerpt, sleep } from './util.js';

export interface LocalRuntimeOptions {
  /** Timeout of each `tool_url` call in milliseconds (default 10 s). */
  toolTimeoutMs?: number;
  /** Pause between steps in milliseconds, so a person can watch (default 0). */
  stepDelayMs?: number;
  /** The egress gate's dispatcher for `tool_url` calls (default: undici's global one, which checks nothing). */
  dispatcher?: () => Promise<Dispatcher>;
}

const DECISION = /^\s*(?:[-*]\s*)?(?:\*\*)?Decision:(?:\*\*)?\s*(.+)$/im;
/** The step's first decision line, with its line break, to leave out of the step's text. */
const DECISION_LINES = new RegExp(`${DECISION.source}\\n?`, 'im');

/** Splits a decision line into a short title and the full text. */
function decisionOf(text: string): { title: string; body: string } | undefined {
  const match = DECISION.exec(text);
  if (!match?.[1]) return undefined;
  const body = match[1].trim();
  const title = excerpt(body.split(/(?<=[.!?])\s/)[0] ?? body, 100);
  return { title, body };
}

/** Builds the run report artifact; with delegated steps, it says who did what. */
function report(turn: Turn, skill: TurnSkill | undefined, lines: string[], works: readonly DelegatedWork[] = []): string {
  return [
    `# Run report ${turn.run_id}`,
    '',
    `- Node: ${turn.node.label} (${turn.node.role_id})`,
    `- Structure: ${turn.structure.name}`,
    `- Skill: ${skill ? `${skill.name} (${skill.slug})` : 'none'}`,
    '',
    '## Request',
    '',
    turn.message,
    '',
    '## What was done',
    '',
    ...lines,
    ...(skill && works.length > 0 ? whoDidWhat(turn, skill.steps, works) : []),
    '',
  ].join('\n');
}

/** Turns a `/teach` message into a learned draft (or says what is missing). */
async function learn(turn: Turn, emit: Emit): Promise<void> {
  const lesson = lessonOf(turn.message, turn.history);
  if ('missing' in lesson && lesson.pending) {
    // Still asking: the question stays the node's last word, so the steps can follow.
    await emit({ type: 'text', content: `Send me the steps for "${excerpt(lesson.pending, 120)}" after /teach, one per line or separated by ";".\n` });
    await emit({ type: 'complete', content: { summary: askSummary(lesson.pending), artifacts: [] } });
    return;
  }
  if ('missing' in lesson) {
    const what =
      lesson.missing === 'request'
        ? 'Tell me what the steps are for: ask me the request first and answer my question with /teach and the steps, or write /teach <what it does>: <step>; <step>; … (or the steps on the lines below the request).'
        : 'I did not find any steps: write them after /teach, one per line or separated by ";".';
    await emit({ type: 'text', content: `${what}\n` });
    const why = lesson.missing === 'request' ? 'the lesson did not say what the steps are for' : 'the lesson had no steps to keep';
    await emit({ type: 'complete', content: { summary: `Nothing learned: ${why}.`, artifacts: [] } });
    return;
  }
  const skill = lessonSkill(lesson);
  await emit({ type: 'thought', content: `Learning how to "${excerpt(lesson.request, 120)}" from you: ${lesson.steps.length} step(s).` });
  // The steps are what was taught, not work done: text, never milestones (which go to the workspace log).
  const listed = lesson.steps.map((step, i) => `${i + 1}. ${step}`).join('\n');
  await emit({ type: 'text', content: `The steps you taught me:\n\n${listed}\n\nI will follow them next time someone asks to ${lesson.request}, once the draft is approved.\n` });
  await emit({ type: 'skill_learned', content: { slug: skill.slug, name: skill.name, body: skill.body, summary: skill.summary, tags: skill.tags, category: 'general', triggers: [lesson.request] } });
  await emit({ type: 'complete', content: { summary: `Learned "${skill.name}" (${lesson.steps.length} step(s)) from you; it is a draft until approved.`, artifacts: [] } });
}

/** Creates the local playbook runtime. */
export function createLocalRuntime(options: LocalRuntimeOptions = {}): AgentRuntime {
  const toolTimeoutMs = options.toolTimeoutMs ?? 10_000;
  const stepDelayMs = options.stepDelayMs ?? 0;
  return {
    name: 'local',
    async run(turn: Turn, emitEvent: Emit, tools: TurnTools, signal: AbortSignal) {
      // Once cancelled, say nothing more.
      const emit: Emit = (event) => (signal.aborted ? Promise.resolve() : emitEvent(event));
      await emit({ type: 'thought', content: `Looking for a skill that covers: "${excerpt(turn.message)}"` });
      const query = turn.explicit_skill ? `/${turn.explicit_skill}` : turn.message;
      await emit({ type: 'tool_call', content: { tool: 'search_skills', args: { query } } });
      await emit({
        type: 'tool_result',
        content: { tool: 'search_skills', result: { matches: turn.skills.map(({ slug, name, score }) => ({ slug, name, score })) } },
      });
      const skill = turn.skills[0];
      if (!skill && turn.explicit_skill === TEACH_COMMAND) return learn(turn, emit);
      if (!skill) {
        if (turn.explicit_skill) {
          const why = `There is no skill named "${turn.explicit_skill}" in this workspace's library.`;
          await emit({ type: 'text', content: `${why} List them with: org skills list` });
          await emit({ type: 'complete', content: { summary: why, artifacts: [] } });
          return;
        }
        const request = excerpt(turn.message, 200);
        await emit({
          type: 'text',
          content:
            'No skill in the library covers this request yet, so I have no playbook to follow. Teach me: reply with /teach and the steps, ' +
            'one per line (or separated by ";"), and I will keep them as a draft skill for review. For example:\n\n' +
            '/teach Collect the dates that work for everyone; Book a venue within the budget; Send the agenda\n\n' +
            'Or write the skill yourself (org skills new), or connect an LLM or a container agent to this node.\n',
        });
        await emit({ type: 'complete', content: { summary: askSummary(request), artifacts: [] } });
        return;
      }
      await emit({ type: 'thought', content: `Following "${skill.name}" (${skill.slug}), ${skill.steps.length} step(s).` });
      const lines: string[] = [];
      const works: DelegatedWork[] = [];
      for (const step of skill.steps) {
        if (signal.aborted) return;
        const title = `Step ${step.n}: ${step.title}`;
        const asked = stepDelegation(step.text);
        if (asked.roles.length === 0) {
          await emit({ type: 'milestone', content: { title } });
          // The step's decision line is said once, as the decision event below.
          const said = step.text.replace(DECISION_LINES, '').trim();
          if (said) await emit({ type: 'text', content: `${said}\n\n` });
          lines.push(`### ${title}`, '', step.text.trim() || '(no instructions)', '');
        } else {
          // The step is another node's: hand it over, wait, and mark it with what came back.
          if (asked.instructions) await emit({ type: 'text', content: `${asked.instructions}\n\n` });
          const done = await delegateStep(turn, step, asked, tools, signal);
          if (signal.aborted) return;
          works.push(...done);
          await emit({ type: 'milestone', content: { title: delegatedMilestone(title, done) } });
          lines.push(`### ${title}`, '', asked.instructions || '(no instructions)', '', ...delegatedReportLines(done));
        }
        if (skill.tool_url) {
          const args = { url: skill.tool_url, message: turn.message, skill: skill.slug, step: { id: step.id, n: step.n, title: step.title } };
          await emit({ type: 'tool_call', content: { tool: 'tool_url', args } });
          const result = await callTool(skill.tool_url, { message: turn.message, skill: skill.slug, step: args.step, run_id: turn.run_id }, {
            timeoutMs: toolTimeoutMs,
            signal,
            ...(options.dispatcher ? { dispatcher: options.dispatcher } : {}),
          });
          if (signal.aborted) return;
          await emit({ type: 'tool_result', content: { tool: 'tool_url', result } });
          lines.push(`Tool call to ${skill.tool_url}: ${excerpt(JSON.stringify(result), 300)}`, '');
        }
        const decision = decisionOf(step.text);
        if (decision) {
          await emit({ type: 'decision', content: decision });
          lines.push(`**Decision:** ${decision.body}`, '');
        }
        await sleep(stepDelayMs, signal);
      }
      if (signal.aborted) return;
      const name = await tools.writeArtifact(`run-report-${turn.run_id.slice(0, 8)}.md`, report(turn, skill, lines, works), 'text/markdown');
      const helpers = [...new Set(works.filter((work) => work.result.status === 'complete').map((work) => work.roleId))];
      const withHelp = helpers.length > 0 ? ` with ${helpers.join(', ')}` : '';
      await emit({
        type: 'complete',
        content: { summary: `Followed "${skill.name}" through ${skill.steps.length} step(s)${withHelp}; the run report is ${name}.`, artifacts: [name] },
      });
    },
  };
}
