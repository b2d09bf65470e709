/**
 * The Ink chat (`org chat`) with ink-testing-library against a real server: every event
 * type rendered its own way, the pick lists when structure and node are omitted,
 * `/attach`, Ctrl-C cancelling the running turn then exiting, and picking up a turn
 * that is still running when the chat opens.
 */
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { render } from 'ink-testing-library';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { OrgClient } from '../src/client/index.js';
import { ChatApp } from '../src/cli/ui/chat/ChatApp.js';
import { EntryView } from '../src/cli/ui/chat/EntryView.js';
import { chatReducer, initialChatState, type ChatAction } from '../src/cli/ui/chat/state.js';
import type { ChatEvent } from '../src/core/chat/types.js';
import type { EventInput } from '../src/core/chat/types.js';
import { createScriptedRuntime } from './helpers/scripted-runtime.js';
import { EVERY_EVENT, waitFor } from './cli-helpers.js';
import { ADMIN_TOKEN, startInstance, type TestInstance } from './helpers/instance.js';

const SLOW: EventInput[] = [
  ...Array.from({ length: 40 }, (_, i): EventInput => ({ type: 'text', content: `part ${i} ` })),
  { type: 'complete', content: { summary: 'slow done', artifacts: [] } },
];

/**
 * Types a line into the Ink app and presses Enter at once, as a fast typist or a paste
 * would: the line sent is everything typed, even before the screen has redrawn.
 */
function typeLine(app: { stdin: { write(data: string): void } }, text: string): void {
  app.stdin.write(text);
  app.stdin.write('\r');
}

describe('EntryView', () => {
  it('renders every event type in its own way', () => {
    const timestamp = '2026-11-22T10:00:00.000Z';
    const actions: ChatAction[] = [
      { type: 'sent', text: 'close March', attachments: ['ledger.csv'] },
      ...EVERY_EVENT.map((event): ChatAction => ({ type: 'event', event: { ...event, timestamp } as ChatEvent })),
      // The outcomes the server reports after the runtime's proposal (API.md §9).
      { type: 'event', event: { type: 'skill_learned', content: { slug: 'close-the-books-2', name: 'Close the books', stored: true }, timestamp } as ChatEvent },
      { type: 'event', event: { type: 'skill_learned', content: { slug: 'echo', name: 'Echo', stored: false, reason: 'the turn used the skill run-month-end-close' }, timestamp } as ChatEvent },
      { type: 'event', event: { type: 'tool_call', content: { tool: 'fetch_ledger', args: { month: 3 } }, timestamp } },
      { type: 'event', event: { type: 'error', content: { message: 'the ledger is locked' }, timestamp } },
    ];
    const state = actions.reduce(chatReducer, initialChatState);
    const { lastFrame, unmount } = render(
      <>
        {state.entries.map((entry) => (
          <EntryView key={entry.id} entry={entry} />
        ))}
      </>,
    );
    const frame = lastFrame() ?? '';
    unmount();
    expect(frame).toContain('› close March');
    expect(frame).toContain('📎 ledger.csv');
    expect(frame).toContain('· Thinking about the quarter'); // thought
    expect(frame).toMatch(/✓ search_skills .*close the books.* → .*run-month-end-close/); // tool call + collapsed result
    expect(frame).toContain('▸ Ledger reconciled'); // milestone
    expect(frame).toContain('Hello world.'); // streamed text, merged
    expect(frame).toContain('◆ Decision: Accrue the invoice'); // decision title
    expect(frame).toContain('Accrue it in March because'); // and its body
    // skill_learned: only outcomes show, with the command that reviews the stored draft.
    expect(frame).toContain('✎ learned a draft skill: close-the-books-2 (Close the books)');
    expect(frame).toContain('review it: org drafts approve close-the-books-2');
    expect(frame).toContain('✎ not learned "Echo": the turn used the skill run-month-end-close');
    expect(frame).not.toContain('close-the-books (Close the books)'); // the runtime's proposal
    expect(frame).toContain('✔ Closed March'); // complete
    expect(frame).toContain('artifacts: report.md, ledger.csv');
    expect(frame).toContain('fetch_ledger'); // a tool call still waiting: spinner, no ✓
    expect(frame).not.toMatch(/✓ fetch_ledger/);
    expect(frame).toContain('✖ the ledger is locked'); // error
  });
});

describe('ChatApp against a server', () => {
  let t: TestInstance;
  let client: OrgClient;
  let structureId: string;
  const cleanups: (() => void)[] = [];

  beforeAll(async () => {
    t = await startInstance({
      listen: true,
      deps: { runtime: () => createScriptedRuntime((turn) => (turn.message.startsWith('slow') ? SLOW : EVERY_EVENT), { delayMs: 30 }) },
    });
    client = new OrgClient({ url: t.url, token: ADMIN_TOKEN });
    structureId = (await client.createStructure('Chat UI', 'exec-team')).id;
    await client.createStructure('Second', 'personal');
  });
  afterEach(() => {
    for (const cleanup of cleanups.splice(0)) cleanup();
  });
  afterAll(() => t.close());

  function mount(props: { structure?: string; role?: string; cwd?: string }) {
    const exits: number[] = [];
    const app = render(<ChatApp client={client} {...props} onExit={(code) => exits.push(code)} />);
    cleanups.push(() => app.unmount());
    const frame = () => app.lastFrame() ?? '';
    return { ...app, exits, frame };
  }

  it('sends a message and renders the streamed turn, event by event', async () => {
    const app = mount({ structure: 'Chat UI', role: 'exec-ceo' });
    await waitFor(() => app.frame().includes('exec-ceo ›'), 'the input line');
    expect(app.frame()).toContain('Chat UI · Chief Executive Officer (exec-ceo)');
    typeLine(app, 'close March');
    await waitFor(() => app.frame().includes('✔ Closed March'), 'the summary');
    const frame = app.frame();
    for (const expected of ['› close March', '· Thinking about the quarter', '✓ search_skills', '▸ Ledger reconciled', 'Hello world.', '◆ Decision: Accrue the invoice', '✎ learned a draft skill: close-the-books (Close the books)', 'artifacts: report.md, ledger.csv']) {
      expect(frame).toContain(expected);
    }
    expect(app.exits).toEqual([]);
  });

  it('picks the structure and the node from lists when they are omitted', async () => {
    const app = mount({});
    await waitFor(() => app.frame().includes('Which structure?'), 'the structure list');
    expect(app.frame()).toContain('Chat UI');
    expect(app.frame()).toContain('Second');
    // The list is in server order; move to "Chat UI" whichever row it is on.
    const rows = app.frame().split('\n').filter((line) => /^(❯ | {2})(Chat UI|Second)\b/.test(line));
    const target = rows.findIndex((line) => line.includes('Chat UI'));
    for (let i = 0; i < target; i++) app.stdin.write('\u001B[B'); // down arrow
    app.stdin.write('\r');
    await waitFor(() => app.frame().includes('Whom in Chat UI?'), 'the node list');
    app.stdin.write('\r'); // the first node
    await waitFor(() => /› /.test(app.frame()) && app.frame().includes('/help'), 'the chat screen');
  });

  it('attaches a file with /attach and sends it with the next message', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'org-attach-'));
    await writeFile(join(dir, 'notes.txt'), 'q1 numbers');
    const app = mount({ structure: structureId, role: 'exec-cfo', cwd: dir });
    await waitFor(() => app.frame().includes('exec-cfo ›'), 'the input line');
    typeLine(app, '/attach notes.txt');
    await waitFor(() => app.frame().includes('attached notes.txt'), 'the attach notice');
    typeLine(app, 'see attached');
    await waitFor(() => app.frame().includes('✔ Closed March'), 'the summary');
    expect(app.frame()).toContain('📎 notes.txt');
    const history = await client.history(structureId, 'exec-cfo', { limit: 5 });
    expect(history.find((m) => m.sender === 'user')?.attachments.map((a) => a.name)).toEqual(['notes.txt']);
  });

  it('Ctrl-C cancels the running turn (cancel endpoint), a second Ctrl-C exits', async () => {
    const app = mount({ structure: 'Chat UI', role: 'exec-coo' });
    await waitFor(() => app.frame().includes('exec-coo ›'), 'the input line');
    typeLine(app, 'slow work');
    await waitFor(() => app.frame().includes('part 2'), 'streamed text');
    app.stdin.write('\u0003');
    await waitFor(() => app.frame().includes('✖ cancelled'), 'the cancelled error');
    expect(app.exits).toEqual([]);
    const history = await client.history(structureId, 'exec-coo', { limit: 2 });
    expect(history[0]).toMatchObject({ sender: 'agent', status: 'error' });
    expect(app.frame()).not.toContain('part 39');
    app.stdin.write('\u0003');
    await waitFor(() => app.exits.length > 0, 'the exit');
    expect(app.exits).toEqual([0]);
  });

  it('follows a turn that is still running when the chat opens', async () => {
    const stream = await client.chat({ structure_id: structureId, role_id: 'exec-cmo', message: 'slow from elsewhere' });
    stream.close(); // the other client goes away; the turn goes on
    const app = mount({ structure: 'Chat UI', role: 'exec-cmo' });
    await waitFor(() => app.frame().includes('still running'), 'the resume notice');
    await waitFor(() => app.frame().includes('✔ slow done'), 'the end of the resumed turn');
    expect(app.frame()).toContain('part 39');
  });
});

describe('ChatApp on the local runtime', () => {
  it('shows a decision of a skill step once, where it used to show it three times', async () => {
    const t = await startInstance({ listen: true });
    try {
      const client = new OrgClient({ url: t.url, token: ADMIN_TOKEN });
      await client.createStructure('Decisions', 'exec-team');
      const SENTENCE = 'Ship the release on Friday.';
      await t.app.skills.upsert({
        slug: 'plan-the-release',
        frontmatter: { type: 'skill', name: 'Plan the release', status: 'complete', tags: ['release', 'ship'], summary: 'Plan when the release ships.' },
        body: `## [check] Step 1: Check the board\n\nLook at what is open.\n\n## [decide] Step 2: Decide the date\n\nWeigh the open work.\nDecision: ${SENTENCE} The board is clear by then.\n`,
      });
      const app = render(<ChatApp client={client} structure="Decisions" role="exec-cto" onExit={() => undefined} />);
      try {
        await waitFor(() => (app.lastFrame() ?? '').includes('exec-cto ›'), 'the input line');
        typeLine(app, 'plan the release');
        await waitFor(() => (app.lastFrame() ?? '').includes('✔ Followed "Plan the release"'), 'the summary');
        const frame = (app.lastFrame() ?? '').replace(/\s+/g, ' ');
        expect(frame).toContain(`◆ Decision: ${SENTENCE} The board is clear by then.`);
        expect(frame.split(SENTENCE).length - 1).toBe(1);
        expect(frame).toContain('Weigh the open work.');
      } finally {
        app.unmount();
      }
    } finally {
      await t.close();
    }
  });
});
