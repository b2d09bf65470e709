/**
 * The web UI's view of delegations (API.md §10), rendered to static markup: the delegate
 * card in the delegating node's chat (target, live status from the nodes' states, outcome,
 * the link that opens the delegated turn), the "Delegated by" line of the delegated turn's
 * message, the route of that link, and the canvas edge marked while the delegated turn runs.
 */
import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import type { ChatEvent, OrgNode } from '../src/api/types';
import { toFlowEdges } from '../src/canvas/flow';
import { DelegatedBy } from '../src/chat/DelegatedBy';
import { toBlocks } from '../src/chat/blocks';
import { EventList } from '../src/chat/EventList';
import { href, parseRoute } from '../src/router';

const SID = '7d3c1a8e-2b4f-4c6d-9e0a-1b2c3d4e5f60';
const RUN = '5f0c8a9e-3c1f-4b7e-9d55-0e9a8f6d2b11';
const T = '2026-11-22T10:00:00.000Z';
const ev = (event: Omit<ChatEvent, 'timestamp'>): ChatEvent => ({ ...event, timestamp: T }) as ChatEvent;
const node = (id: string, roleId: string, label: string, parent: string | null, extra: Partial<OrgNode> = {}): OrgNode => ({
  id,
  role_id: roleId,
  label,
  parent_id: parent,
  x: 0,
  y: 0,
  state: 'idle',
  starting_context: '',
  container_url: null,
  created_at: T,
  ...extra,
});
const call = ev({ type: 'tool_call', content: { tool: 'delegate', args: { role_id: 'exec-cfo', message: 'Close March', run_id: RUN } } });
const result = ev({ type: 'tool_result', content: { tool: 'delegate', result: { run_id: RUN, role_id: 'exec-cfo', status: 'complete', summary: 'March is closed.', artifacts: ['close.md'] } } });

describe('delegations in the web UI', () => {
  it('groups a delegation and its outcome into one block, a refused one too', () => {
    expect(toBlocks([call, result])).toEqual([
      { kind: 'delegate', key: 'e0', roleId: 'exec-cfo', message: 'Close March', runId: RUN, done: true, outcome: { status: 'complete', summary: 'March is closed.', artifacts: ['close.md'] } },
    ]);
    const refused = toBlocks([
      ev({ type: 'tool_call', content: { tool: 'delegate', args: { role_id: 'exec-ceo', message: 'me', run_id: null } } }),
      ev({ type: 'tool_result', content: { tool: 'delegate', result: { run_id: null, role_id: 'exec-ceo', status: 'error', summary: 'exec-ceo cannot delegate to itself', artifacts: [], refused: 'self' } } }),
    ]);
    expect(refused).toMatchObject([{ kind: 'delegate', runId: null, done: true, outcome: { refused: 'self', summary: 'exec-ceo cannot delegate to itself' } }]);
  });

  it('shows the target by label, a live status from its state, and a link that follows the delegated turn', () => {
    const render = (nodes: OrgNode[], events: ChatEvent[], running = true) =>
      renderToStaticMarkup(<EventList events={events} structureId={SID} running={running} nodes={nodes} roleId="exec-ceo" />);
    const working = render([node('c', 'exec-cfo', 'Chief Financial Officer', null, { state: 'working', working_for: 'exec-ceo' })], [call]);
    expect(working).toContain('Chief Financial Officer (exec-cfo)');
    expect(working).toContain('Working on it…');
    expect(working).toContain(`href="${href.run(SID, 'exec-cfo', RUN).replace(/&/g, '&amp;')}"`);
    expect(working).toContain('Follow Chief Financial Officer’s turn live');
    const waiting = render([node('c', 'exec-cfo', 'Chief Financial Officer', null, { state: 'working' })], [call]);
    expect(waiting).toContain('Waiting for Chief Financial Officer to finish its current turn…');
    const done = render([node('c', 'exec-cfo', 'Chief Financial Officer', null)], [call, result], false);
    expect(done).toContain('Done');
    expect(done).toContain('March is closed.');
    expect(done).toContain('close.md');
    const ended = render([node('c', 'exec-cfo', 'Chief Financial Officer', null)], [call], false);
    expect(ended).toContain('No answer: the turn ended first');
    const stopped = render([node('c', 'exec-cfo', 'Chief Financial Officer', null)], [call, ev({ type: 'error', content: { message: 'cancelled', cancelled_by: 'ada@example.com' } })], false);
    expect(stopped).toMatch(/ev-delegate-status status-stopped"[^>]*>Stopped</);
  });

  it('the delegated turn names who delegated it, linked to the delegating turn; the link is a route to that turn', () => {
    const html = renderToStaticMarkup(<DelegatedBy by={{ role_id: 'exec-ceo', run_id: RUN, root_run_id: RUN }} structureId={SID} nodes={[node('a', 'exec-ceo', 'Chief Executive Officer', null)]} />);
    expect(html).toContain('Delegated by');
    expect(html).toContain('Chief Executive Officer (exec-ceo)');
    expect(parseRoute(href.run(SID, 'exec-ceo', RUN).slice(1))).toEqual({ page: 'canvas', structureId: SID, roleId: 'exec-ceo', runId: RUN });
  });

  it('marks the canvas edge between the two nodes while the delegated turn runs, and draws one between nodes that are not parent and child', () => {
    const nodes = [
      node('a', 'exec-ceo', 'CEO', null, { state: 'working' }),
      node('b', 'exec-cfo', 'CFO', 'a', { state: 'working', working_for: 'exec-ceo' }),
      node('c', 'exec-controller', 'Controller', 'b', { state: 'working', working_for: 'exec-ceo' }),
    ];
    const edges = toFlowEdges(nodes, new Map());
    expect(edges.find((edge) => edge.id === 'edge-b')).toMatchObject({ source: 'a', target: 'b', className: 'edge edge-delegation', animated: true });
    expect(edges.find((edge) => edge.id === 'edge-c')).toMatchObject({ className: 'edge', animated: false });
    expect(edges.find((edge) => edge.id === 'delegation-c')).toMatchObject({ source: 'a', target: 'c', className: 'edge edge-delegation', animated: true });
    expect(toFlowEdges(nodes.map((each) => ({ ...each, working_for: undefined, state: 'idle' as const })), new Map()).some((edge) => edge.className !== 'edge')).toBe(false);
  });
});
