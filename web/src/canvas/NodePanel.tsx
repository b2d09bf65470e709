/**
 * The selected node's panel: its header (details, delete) and two tabs, the chat and
 * the artifact shelf. On phones the panel takes the whole screen, with a way back to
 * the node list.
 */
import { useState } from 'react';
import type { OrgNode } from '../api/types';
import { ChatPanel } from '../chat/ChatPanel';
import { href } from '../router';
import { Shelf } from '../shelf/Shelf';
import { NodeHeader } from './NodeHeader';

/** Props of {@link NodePanel}. */
export interface NodePanelProps {
  structureId: string;
  node: OrgNode;
  nodes: readonly OrgNode[];
  canWrite: boolean;
  onChanged: () => Promise<void>;
  onDeleted: () => Promise<void>;
  /** A turn of the node started or ended (see ChatPanel). */
  onActivity?: (running: boolean) => void;
  /** Whether the canvas hides the node's reports, and the switch (absent where there is no canvas). */
  collapse?: { collapsed: boolean; toggle: () => void };
  /** A turn to open the chat at (a link to a delegated run). */
  run?: string | undefined;
}

const TABS = [
  { id: 'chat', label: 'Chat' },
  { id: 'files', label: 'Files' },
] as const;

export function NodePanel({ structureId, node, nodes, canWrite, onChanged, onDeleted, onActivity, collapse, run }: NodePanelProps) {
  const [tab, setTab] = useState<'chat' | 'files'>('chat');
  /** A turn to show once the chat has loaded it (from the shelf's run links, or the link that opened the panel). */
  const [showRun, setShowRun] = useState<string | null>(run ?? null);
  // A link to another turn of the same node (a delegation's) opens it too.
  const [linked, setLinked] = useState(run);
  if (run !== linked) {
    setLinked(run);
    if (run) {
      setShowRun(run);
      setTab('chat');
    }
  }
  return (
    <>
      <a className="panel-back" href={href.canvas(structureId)}>
        All nodes
      </a>
      <NodeHeader structureId={structureId} node={node} nodes={nodes} canWrite={canWrite} onChanged={onChanged} onDeleted={onDeleted} {...(collapse ? { collapse } : {})} />
      <div className="panel-tabs" role="tablist" aria-label={`${node.label}: chat and files`}>
        {TABS.map((candidate) => (
          <button
            key={candidate.id}
            type="button"
            role="tab"
            id={`tab-${candidate.id}`}
            aria-selected={tab === candidate.id}
            aria-controls={`panel-${candidate.id}`}
            tabIndex={tab === candidate.id ? 0 : -1}
            className={tab === candidate.id ? 'panel-tab active' : 'panel-tab'}
            onClick={() => setTab(candidate.id)}
            onKeyDown={(event) => {
              if (event.key !== 'ArrowLeft' && event.key !== 'ArrowRight') return;
              const next = tab === 'chat' ? 'files' : 'chat';
              setTab(next);
              document.getElementById(`tab-${next}`)?.focus();
            }}
          >
            {candidate.label}
          </button>
        ))}
      </div>
      <div className="panel-body" role="tabpanel" id={`panel-${tab}`} aria-labelledby={`tab-${tab}`}>
        {tab === 'chat' ? (
          <ChatPanel
            structureId={structureId}
            node={node}
            canChat={canWrite}
            nodes={nodes}
            showRun={showRun}
            onRunShown={() => setShowRun(null)}
            {...(onActivity ? { onActivity } : {})}
          />
        ) : (
          <Shelf
            structureId={structureId}
            roleId={node.role_id}
            refreshKey={node.state}
            onShowRun={(runId) => {
              setShowRun(runId);
              setTab('chat');
            }}
          />
        )}
      </div>
    </>
  );
}
