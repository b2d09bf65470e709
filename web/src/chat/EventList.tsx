/**
 * Renders a turn's events per type: thoughts folded, tool calls paired with their
 * results and collapsible (a skill search as its matches, scored as the search tester
 * scores them), text streamed as GitHub-flavoured markdown, decisions and milestones
 * marked, a stored draft linked to its review (and a draft that was not stored said so),
 * the summary with artifact downloads, a stopped run in a neutral note, and errors in
 * red. Props in, callbacks out: no fetching here.
 */
import type { ChatEvent, OrgNode } from '../api/types';
import { href } from '../router';
import { formatJson } from '../ui/format';
import { Gfm } from '../ui/LazyGfm';
import { Score } from '../ui/Score';
import { toBlocks, type Block, type SkillMatch } from './blocks';
import { DelegateCard } from './DelegateCard';

/** Props of {@link EventList}. */
export interface EventListProps {
  events: readonly ChatEvent[];
  structureId: string;
  /** True while the turn runs (an open tool call then shows as running). */
  running?: boolean;
  /** Downloads an artifact of the turn by name. */
  onDownload?: (name: string) => void;
  /** Who is reading (their e-mail), so a run they stopped reads "Stopped by you". */
  viewer?: string | undefined;
  /** The structure's nodes with their live states, for delegations (whom a task went to, and how it goes). */
  nodes?: readonly OrgNode[] | undefined;
  /** The role id of the node whose turn this is. */
  roleId?: string | undefined;
}

/** The events of one turn. */
export function EventList({ events, structureId, running = false, onDownload, viewer, nodes, roleId }: EventListProps) {
  const blocks = toBlocks(events);
  return (
    <div className="events">
      {blocks.map((block) => (
        <BlockView key={block.key} block={block} structureId={structureId} running={running} onDownload={onDownload} viewer={viewer} nodes={nodes} roleId={roleId} />
      ))}
    </div>
  );
}

interface BlockViewProps {
  block: Block;
  structureId: string;
  running: boolean;
  onDownload?: ((name: string) => void) | undefined;
  viewer?: string | undefined;
  nodes?: readonly OrgNode[] | undefined;
  roleId?: string | undefined;
}

function BlockView({ block, structureId, running, onDownload, viewer, nodes, roleId }: BlockViewProps) {
  switch (block.kind) {
    case 'delegate':
      return <DelegateCard block={block} structureId={structureId} running={running} target={nodes?.find((node) => node.role_id === block.roleId)} from={roleId} />;
    case 'thought':
      return (
        <details className="ev ev-thought">
          <summary>
            <span className="ev-tag">Thought</span> <span className="ev-preview">{preview(block.text)}</span>
          </summary>
          <p className="ev-thought-text">{block.text}</p>
        </details>
      );
    case 'text':
      return <Gfm className="ev ev-text">{block.text}</Gfm>;
    case 'tool': {
      const state = block.done ? 'done' : running ? 'running' : 'no result';
      return (
        <details className={`ev ev-tool ev-tool-${block.done ? 'done' : 'open'}`}>
          <summary>
            <span className="ev-tag">Tool</span> <code className="ev-tool-name">{block.tool}</code>{' '}
            <span className={`ev-tool-state ev-tool-state-${state.replace(' ', '-')}`}>{state}</span>
          </summary>
          {block.hasCall ? (
            <div className="ev-tool-part">
              <div className="ev-tool-label">Arguments</div>
              <pre className="ev-code ev-tool-args" tabIndex={0} aria-label={`Arguments of ${block.tool}`}>
                {formatJson(block.args)}
              </pre>
            </div>
          ) : null}
          {block.matches ? <Matches matches={block.matches} structureId={structureId} /> : null}
          {block.done && !block.matches ? (
            <div className="ev-tool-part">
              <div className="ev-tool-label">Result</div>
              <pre className="ev-code ev-tool-result" tabIndex={0} aria-label={`Result of ${block.tool}`}>
                {formatJson(block.result)}
              </pre>
            </div>
          ) : null}
        </details>
      );
    }
    case 'decision':
      return (
        <div className="ev ev-decision" role="note">
          <div className="ev-mark">
            <span className="ev-tag ev-tag-decision">Decision</span> <strong>{block.title}</strong>
          </div>
          {block.body ? <p className="ev-decision-body">{block.body}</p> : null}
        </div>
      );
    case 'milestone':
      return (
        <div className="ev ev-milestone">
          <span className="ev-milestone-dot" aria-hidden="true" /> <span className="ev-tag ev-tag-milestone">Milestone</span> {block.title}
        </div>
      );
    case 'learned':
      return (
        <div className="ev ev-learned">
          <span className="ev-tag ev-tag-learned">Skill learned</span> {block.name}{' '}
          <a href={href.draft(structureId, block.slug)} className="ev-learned-link">
            Review the draft <code>{block.slug}</code>
          </a>
        </div>
      );
    case 'not_learned':
      return (
        <div className="ev ev-not-learned" role="note">
          <span className="ev-tag">Not stored</span> The agent offered a skill, {block.name}, but no draft was stored: {block.reason}
        </div>
      );
    case 'proposed':
      return (
        <div className="ev ev-not-learned" role="note">
          <span className="ev-tag">Skill offered</span> {block.name}. <a href={href.skills(structureId, 'drafts')}>See the drafts waiting for review</a>
        </div>
      );
    case 'stopped':
      return (
        <div className="ev ev-stopped" role="note">
          <span className="ev-tag">Stopped</span> {block.by ? `Stopped by ${block.by === viewer ? 'you' : block.by}.` : 'This turn was stopped.'}
        </div>
      );
    case 'complete':
      return (
        <div className="ev ev-complete">
          <div className="ev-mark">
            <span className="ev-tag ev-tag-complete">Complete</span>
          </div>
          <p className="ev-summary">{block.summary}</p>
          {block.artifacts.length > 0 ? (
            <ul className="ev-artifacts" aria-label="Artifacts">
              {block.artifacts.map((name) => (
                <li key={name}>
                  <button type="button" className="btn btn-small btn-link" onClick={() => onDownload?.(name)} title={`Download ${name}`}>
                    ↓ {name}
                  </button>
                </li>
              ))}
            </ul>
          ) : null}
        </div>
      );
    case 'error':
      return (
        <div className="ev ev-error" role="alert">
          <span className="ev-tag ev-tag-error">Error</span> {block.message}
        </div>
      );
    default:
      return (
        <details className="ev ev-unknown">
          <summary>
            <span className="ev-tag">{block.type}</span>
          </summary>
          <pre className="ev-code" tabIndex={0} aria-label={`Content of the ${block.type} event`}>
            {formatJson(block.content)}
          </pre>
        </details>
      );
  }
}

function Matches({ matches, structureId }: { matches: SkillMatch[]; structureId: string }) {
  if (matches.length === 0) return <p className="ev-tool-part muted">No skill matched.</p>;
  const best = Math.max(...matches.map((match) => match.score));
  return (
    <div className="ev-tool-part">
      <div className="ev-tool-label">Skills matched</div>
      <ol className="ev-matches">
        {matches.map((match) => (
          <li key={match.slug}>
            <a href={href.skill(structureId, match.slug)}>{match.name ?? match.slug}</a> <Score value={match.score} best={best} />
          </li>
        ))}
      </ol>
    </div>
  );
}

function preview(text: string): string {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > 90 ? `${line.slice(0, 89)}…` : line;
}
