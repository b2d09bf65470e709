/**
 * Renders a turn's events per type: thoughts folded, tool calls paired with their
 * results and collapsible, text streamed as markdown, decisions and milestones marked,
 * learned skills linked to the draft review, the summary with artifact downloads, and
 * errors in red. Props in, callbacks out: no fetching here.
 */
import Markdown from 'react-markdown';
import type { ChatEvent } from '../api/types';
import { href } from '../router';
import { formatJson } from '../ui/format';
import { toBlocks, type Block } from './blocks';

/** Props of {@link EventList}. */
export interface EventListProps {
  events: readonly ChatEvent[];
  structureId: string;
  /** True while the turn runs (an open tool call then shows as running). */
  running?: boolean;
  /** Downloads an artifact of the turn by name. */
  onDownload?: (name: string) => void;
}

/** The events of one turn. */
export function EventList({ events, structureId, running = false, onDownload }: EventListProps) {
  const blocks = toBlocks(events);
  return (
    <div className="events">
      {blocks.map((block) => (
        <BlockView key={block.key} block={block} structureId={structureId} running={running} onDownload={onDownload} />
      ))}
    </div>
  );
}

function BlockView({ block, structureId, running, onDownload }: { block: Block; structureId: string; running: boolean; onDownload?: ((name: string) => void) | undefined }) {
  switch (block.kind) {
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
      return (
        <div className="ev ev-text">
          <Markdown skipHtml>{block.text}</Markdown>
        </div>
      );
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
              <pre className="ev-code ev-tool-args">{formatJson(block.args)}</pre>
            </div>
          ) : null}
          {block.done ? (
            <div className="ev-tool-part">
              <div className="ev-tool-label">Result</div>
              <pre className="ev-code ev-tool-result">{formatJson(block.result)}</pre>
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
    case 'skill_learned':
      return (
        <div className="ev ev-learned">
          <span className="ev-tag ev-tag-learned">Skill learned</span> {block.name}{' '}
          <a href={href.draft(structureId, block.slug)} className="ev-learned-link">
            Review the draft <code>{block.slug}</code>
          </a>
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
          <pre className="ev-code">{formatJson(block.content)}</pre>
        </details>
      );
  }
}

function preview(text: string): string {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > 90 ? `${line.slice(0, 89)}…` : line;
}
