/**
 * Markdown as people write it (GitHub-flavoured: tables, task lists, strikethrough,
 * autolinks), never raw HTML. Wide tables scroll inside a focusable region, so the page
 * itself never scrolls sideways and keyboard users can reach the hidden columns.
 */
import Markdown, { type Components } from 'react-markdown';
import remarkGfm from 'remark-gfm';

/** The plugins every markdown view uses. */
export const GFM_PLUGINS = [remarkGfm];

/** Element overrides every markdown view uses. */
export const GFM_COMPONENTS: Components = {
  table: ({ children }) => (
    <div className="table-scroll" tabIndex={0} role="region" aria-label="Table">
      <table>{children}</table>
    </div>
  ),
  a: ({ children, href }) => (
    <a href={href} target="_blank" rel="noopener noreferrer">
      {children}
    </a>
  ),
};

/** Renders markdown text. */
export function Gfm({ children, className }: { children: string; className?: string }) {
  return (
    <div className={className}>
      <Markdown skipHtml remarkPlugins={GFM_PLUGINS} components={GFM_COMPONENTS}>
        {children}
      </Markdown>
    </div>
  );
}
