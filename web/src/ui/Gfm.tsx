/**
 * Markdown as people write it (GitHub-flavoured: tables, task lists, strikethrough,
 * autolinks), never raw HTML. Wide tables and code blocks scroll inside focusable boxes
 * named by what they hold, so the page itself never scrolls sideways and keyboard users
 * can reach what is hidden; every code block has a Copy button. This module carries the
 * markdown libraries: pages load it through `LazyGfm` (its own chunk).
 */
import { useState } from 'react';
import Markdown, { type Components } from 'react-markdown';
import remarkGfm from 'remark-gfm';

/** The plugins every markdown view uses. */
export const GFM_PLUGINS = [remarkGfm];

/** A node of the markdown syntax tree, as far as the text of a table or code block needs it. */
interface TreeNode {
  type?: string;
  tagName?: string;
  value?: string;
  children?: TreeNode[];
}

/** The text of a syntax tree node. */
export function treeText(node: TreeNode | undefined): string {
  if (!node) return '';
  if (node.type === 'text') return node.value ?? '';
  return (node.children ?? []).map(treeText).join('');
}

/** The header cells of a table node, for its name. */
function headerCells(node: TreeNode | undefined): string[] {
  const cells: string[] = [];
  const visit = (current: TreeNode) => {
    if (current.tagName === 'th') cells.push(treeText(current).trim());
    else if (cells.length === 0) (current.children ?? []).forEach(visit);
  };
  if (node) visit(node);
  return cells.filter(Boolean);
}

/** Copies a code block's text and says so for a moment. */
function CopyButton({ text }: { text: string }) {
  const [state, setState] = useState<'idle' | 'copied' | 'failed'>('idle');
  return (
    <button
      type="button"
      className="btn btn-small code-copy"
      onClick={() => {
        navigator.clipboard.writeText(text).then(
          () => setState('copied'),
          () => setState('failed'),
        );
      }}
      onBlur={() => setState('idle')}
    >
      {state === 'copied' ? 'Copied' : state === 'failed' ? 'Copy failed' : 'Copy'}
    </button>
  );
}

/** Element overrides every markdown view uses. */
export const GFM_COMPONENTS: Components = {
  table: ({ children, node }) => {
    const headers = headerCells(node as TreeNode | undefined);
    return (
      <div className="table-scroll" tabIndex={0} role="group" aria-label={headers.length > 0 ? `Table: ${headers.join(', ')}` : 'Table'}>
        <table>{children}</table>
      </div>
    );
  },
  pre: ({ children, node }) => {
    const text = treeText(node as TreeNode | undefined).replace(/\n$/, '');
    const first = text.split('\n')[0]?.trim() ?? '';
    return (
      <div className="code-block">
        <pre tabIndex={0} aria-label={`Code: ${first.length > 40 ? `${first.slice(0, 39)}…` : first}`}>
          {children}
        </pre>
        <CopyButton text={text} />
      </div>
    );
  },
  a: ({ children, href }) => (
    <a href={href} target="_blank" rel="noopener noreferrer">
      {children}
    </a>
  ),
};

/** Renders markdown text. */
export function Gfm({ children, className, components }: { children: string; className?: string | undefined; components?: Components }) {
  return (
    <div className={className}>
      <Markdown skipHtml remarkPlugins={GFM_PLUGINS} components={components ? { ...GFM_COMPONENTS, ...components } : GFM_COMPONENTS}>
        {children}
      </Markdown>
    </div>
  );
}

export default Gfm;
