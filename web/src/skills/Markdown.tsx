/**
 * Markdown of skill bodies (GitHub-flavoured, no raw HTML); step headings get ids so the
 * step list can jump to them.
 */
import { Children, isValidElement, type ReactNode } from 'react';
import type { Components } from 'react-markdown';
import { Gfm } from '../ui/LazyGfm';

function textOf(node: ReactNode): string {
  if (typeof node === 'string' || typeof node === 'number') return String(node);
  if (Array.isArray(node)) return node.map(textOf).join('');
  if (isValidElement<{ children?: ReactNode }>(node)) return textOf(node.props.children);
  return '';
}

/** The DOM id of a step heading. */
export const stepAnchor = (id: string) => `step-${id}`;

const STEP_HEADINGS: Components = {
  h2: ({ children }) => {
    const parts = Children.toArray(children);
    const match = /^\[([^\]]+)\]\s*/.exec(textOf(parts));
    const first = parts[0];
    if (!match || typeof first !== 'string' || !first.startsWith(match[0])) return <h2 id={match ? stepAnchor(match[1]!) : undefined}>{children}</h2>;
    // "## [id] Step 1: Title" reads as "Step 1: Title" with the id as a quiet tag.
    return (
      <h2 id={stepAnchor(match[1]!)}>
        <span className="step-id">{match[1]}</span>
        {first.slice(match[0].length)}
        {parts.slice(1)}
      </h2>
    );
  },
};

/** Renders a skill body. */
export function SkillMarkdown({ body }: { body: string }) {
  return (
    <Gfm className="markdown" components={STEP_HEADINGS}>
      {body}
    </Gfm>
  );
}
