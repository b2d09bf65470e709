/**
 * "Find a node" on the canvas: matches labels and role ids as you type (words in any
 * order), lists the first matches, and Enter or a click opens the node, which the canvas
 * then brings into view.
 */
import { useId, useState } from 'react';
import type { OrgNode } from '../api/types';

/** At most this many matches are listed. */
const SHOWN = 8;

/** Nodes whose label or role id contains every word of `query`, best first (label starts, then role id starts). */
export function findNodes(nodes: readonly OrgNode[], query: string): OrgNode[] {
  const words = query.toLowerCase().split(/\s+/).filter(Boolean);
  if (words.length === 0) return [];
  const text = (node: OrgNode) => `${node.label} ${node.role_id}`.toLowerCase();
  const rank = (node: OrgNode) => (node.label.toLowerCase().startsWith(words[0]!) ? 0 : node.role_id.startsWith(words[0]!) ? 1 : 2);
  return nodes.filter((node) => words.every((word) => text(node).includes(word))).sort((a, b) => rank(a) - rank(b) || a.label.localeCompare(b.label));
}

/** The search box with its list of matches. */
export function NodeSearch({ nodes, onPick }: { nodes: readonly OrgNode[]; onPick: (roleId: string) => void }) {
  const [query, setQuery] = useState('');
  const listId = useId();
  const matches = findNodes(nodes, query);
  const pick = (node: OrgNode) => {
    onPick(node.role_id);
    setQuery('');
  };
  return (
    <form
      className="node-search"
      role="search"
      aria-label="Find a node"
      onSubmit={(event) => {
        event.preventDefault();
        if (matches[0]) pick(matches[0]);
      }}
    >
      <label className="sr-only" htmlFor={`${listId}-input`}>
        Find a node by label or role id
      </label>
      <input
        id={`${listId}-input`}
        type="search"
        name="find"
        placeholder="Find a node…"
        autoComplete="off"
        value={query}
        aria-controls={query.trim() ? listId : undefined}
        onChange={(event) => setQuery(event.target.value)}
        onKeyDown={(event) => {
          if (event.key === 'Escape') setQuery('');
        }}
      />
      {query.trim() ? (
        <ul className="node-search-results" id={listId} aria-label="Matching nodes">
          {matches.length === 0 ? <li className="muted small node-search-none">No node matches “{query.trim()}”.</li> : null}
          {matches.slice(0, SHOWN).map((node) => (
            <li key={node.id}>
              <button type="button" className="node-search-item" onClick={() => pick(node)}>
                <span>{node.label}</span> <code className="muted">{node.role_id}</code>
              </button>
            </li>
          ))}
          {matches.length > SHOWN ? <li className="muted small node-search-none">and {matches.length - SHOWN} more: type more of the name.</li> : null}
        </ul>
      ) : null}
    </form>
  );
}
