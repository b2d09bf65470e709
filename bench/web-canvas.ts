/**
 * The web UI with a large tree, in a real browser (the chromium of the browser tests, the
 * built UI, a listening server): a 200-node structure's time to first render (the canvas
 * fitted, every node drawn) beside a 7-node template's in the same run, "Tidy up" of all
 * 200 nodes (click to the toast, every position saved), and select-and-centre (a node
 * picked in the side list until it is in view at a readable size). The layout itself is
 * timed without a browser at 200 and 500 nodes, beside dagre (the layout it replaced) on
 * the same trees. And the size of the main chunk of the built UI (raw, gzip, brotli).
 */
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { brotliCompressSync, gzipSync } from 'node:zlib';
import dagre from '@dagrejs/dagre';
import { DEFAULT_WEB_ROOT } from '../src/server/routes/web.js';
import { GAP_X, NODE_H, NODE_W, RANK_STEP, tidyPositions, type LayoutNode } from '../web/src/canvas/layout.js';
import { launchBrowser, openSignedIn } from '../test/helpers/browser.js';
import { startInstance } from '../test/helpers/instance.js';

/** Main chunk of the built UI before this round's changes (commit 05c87c2, measured with this bench's code). */
const MAIN_CHUNK_BEFORE = { raw: 553_820, gzip: 166_260 };

/** A tree of `n` nodes: each node's parent is `floor((i - 1) / fan)`. */
function fanTree(n: number, fan: number): LayoutNode[] {
  const nodes: LayoutNode[] = [];
  for (let i = 0; i < n; i++) nodes.push({ id: `n${i}`, parent_id: i === 0 ? null : `n${Math.floor((i - 1) / fan)}`, x: 0, y: 0, created_at: '2026-01-01T00:00:00.000Z' });
  return nodes;
}

/** dagre on the same tree, as the canvas used it before (top to bottom, the same box sizes and gaps). */
function dagreLayout(nodes: readonly LayoutNode[]): void {
  const graph = new dagre.graphlib.Graph();
  graph.setGraph({ rankdir: 'TB', nodesep: GAP_X, ranksep: RANK_STEP - NODE_H, marginx: 0, marginy: 0 });
  graph.setDefaultEdgeLabel(() => ({}));
  for (const node of nodes) graph.setNode(node.id, { width: NODE_W, height: NODE_H });
  for (const node of nodes) if (node.parent_id) graph.setEdge(node.parent_id, node.id);
  dagre.layout(graph);
}

/** Median time of `rounds` runs of `work`, in ms (after one warm-up run). */
function median(rounds: number, work: () => void): number {
  work();
  const times: number[] = [];
  for (let round = 0; round < rounds; round++) {
    const start = performance.now();
    work();
    times.push(performance.now() - start);
  }
  times.sort((a, b) => a - b);
  return times[Math.floor(times.length / 2)]!;
}

/** Layout times at 200 and 500 nodes, three shapes, beside dagre. */
function layoutFigures(): Record<string, number> {
  const figures: Record<string, number> = {};
  for (const n of [200, 500]) {
    for (const fan of [2, 5, 12]) {
      const nodes = fanTree(n, fan);
      const tidy = median(7, () => void tidyPositions(nodes));
      const baseline = median(fan === 2 && n === 500 ? 3 : 5, () => dagreLayout(nodes));
      figures[`web-canvas.layout.${n}.fan${fan}.tidy_ms`] = tidy;
      figures[`web-canvas.layout.${n}.fan${fan}.dagre_ms`] = baseline;
      figures[`web-canvas.layout.${n}.fan${fan}.speedup`] = baseline / Math.max(tidy, 0.001);
    }
  }
  return figures;
}

/** Sizes of the main chunk of the built UI (the script index.html loads). */
async function chunkFigures(): Promise<Record<string, number>> {
  const index = await readFile(join(DEFAULT_WEB_ROOT, 'index.html'), 'utf8');
  const main = /src="\/assets\/([^"]+\.js)"/.exec(index)?.[1];
  if (!main) throw new Error('no main chunk in dist/web/index.html');
  const code = await readFile(join(DEFAULT_WEB_ROOT, 'assets', main));
  const chunks = (await readdir(join(DEFAULT_WEB_ROOT, 'assets'))).filter((name) => name.endsWith('.js'));
  return {
    'web-canvas.main_chunk.raw_bytes': code.length,
    'web-canvas.main_chunk.gzip_bytes': gzipSync(code, { level: 9 }).length,
    'web-canvas.main_chunk.brotli_bytes': brotliCompressSync(code).length,
    'web-canvas.main_chunk.before_raw_bytes': MAIN_CHUNK_BEFORE.raw,
    'web-canvas.main_chunk.before_gzip_bytes': MAIN_CHUNK_BEFORE.gzip,
    'web-canvas.chunks': chunks.length,
  };
}

/** The browser figures of a 200-node structure. */
async function browserFigures(): Promise<Record<string, number>> {
  const t = await startInstance({ listen: true });
  const browser = await launchBrowser();
  try {
    const user = await t.createUser('bench@example.com');
    const small = (await t.createStructure(user.token, 'exec-team', 'Small')).id;
    const big = (await t.createStructure(user.token, 'blank', 'Big')).id;
    const root = await t.app.nodes.add(big, { role_id: 'org-root', label: 'Head' }, 'bench');
    const leads = [];
    for (let d = 0; d < 8; d++) leads.push(await t.app.nodes.add(big, { role_id: `dir${d}-lead`, label: `Director ${d}`, parent_id: root.id }, 'bench'));
    const managers = [];
    for (let m = 0; m < 24; m++) managers.push(await t.app.nodes.add(big, { role_id: `team${m}-lead`, label: `Manager ${m}`, parent_id: leads[m % 8]!.id }, 'bench'));
    for (let r = 0; r < 167; r++) await t.app.nodes.add(big, { role_id: `team${r % 24}-member${r}`, label: `Member ${r}`, parent_id: managers[r % 24]!.id }, 'bench');

    const context = await browser.newContext({ viewport: { width: 1440, height: 900 } });
    const page = await context.newPage();
    context.setDefaultTimeout(60_000);
    await openSignedIn(page, t.url, user.token);
    const firstRender = async (id: string, count: number) => {
      await page.goto(`${t.url}/#/`);
      await page.getByRole('heading', { name: 'Workspaces', exact: true }).waitFor();
      const start = performance.now();
      await page.goto(`${t.url}/#/w/${id}`);
      await page.locator('.react-flow[data-fitted="true"]').waitFor();
      while ((await page.locator('.react-flow__node[data-role-id]').count()) < count) {
        // Every node drawn (a count read per round trip; no pause).
      }
      return performance.now() - start;
    };
    // Once first: the canvas's own chunk is then loaded and cached, for both timings alike.
    await firstRender(small, 7);
    const smallMs = await firstRender(small, 7);
    const bigMs = await firstRender(big, 200);

    // Select-and-centre: a node far from the root, picked in the side list.
    const frame = (await page.locator('.canvas-frame').boundingBox())!;
    const target = page.locator('[data-role-id="team22-member166"]');
    const start = performance.now();
    await page.locator('[data-list-role-id="team22-member166"]').click();
    for (;;) {
      const box = await target.boundingBox();
      if (box && box.x >= frame.x && box.y >= frame.y && box.x + box.width <= frame.x + frame.width && box.y + box.height <= frame.y + frame.height && box.height >= 40) break;
    }
    const centreMs = performance.now() - start;

    // Tidy up: all 200 nodes (added without positions) laid out and saved.
    await page.goto(`${t.url}/#/w/${big}`);
    await page.locator('.react-flow[data-fitted="true"]').waitFor();
    const tidyStart = performance.now();
    await page.getByRole('button', { name: 'Tidy up' }).click();
    await page.locator('.toast', { hasText: 'Tidied up' }).waitFor();
    const tidyMs = performance.now() - tidyStart;
    const moved = Number(/(\d+) nodes? moved/.exec((await page.locator('.toast', { hasText: 'Tidied up' }).textContent()) ?? '')?.[1] ?? 0);
    await context.close();
    return {
      'web-canvas.first_render.7_nodes_ms': smallMs,
      'web-canvas.first_render.200_nodes_ms': bigMs,
      'web-canvas.first_render.ratio_200_to_7': bigMs / smallMs,
      'web-canvas.select_and_centre.200_nodes_ms': centreMs,
      'web-canvas.tidy_up.200_nodes_ms': tidyMs,
      'web-canvas.tidy_up.200_nodes_saved': moved,
    };
  } finally {
    await browser.close();
    await t.close();
  }
}

/** Every figure of the web canvas benchmark. */
export async function benchWebCanvas(): Promise<Record<string, number>> {
  return { ...layoutFigures(), ...(await chunkFigures()), ...(await browserFigures()) };
}
