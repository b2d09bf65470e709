/**
 * Entry of `npm run bench` (`npm run build && tsx bench/run.ts`). Runs every benchmark,
 * or those named on the command line, and prints every figure at the end:
 *
 *   npm run bench                  # all
 *   npm run bench -- http          # only the HTTP benchmark
 *   npm run bench -- search-core   # only the search-core benchmark (1,000 and 10,000 skills)
 *   npm run bench -- cli-startup   # start-up time of the org command
 *   npm run bench -- cluster       # several org serve processes on one PostgreSQL
 *   npm run bench -- outbound      # memory of big tool answers and replays
 *   npm run bench -- hardening     # fuzzing, kills, slow connections and streams against org serve
 *   npm run bench -- web-canvas    # the web UI with a 200-node tree, the layout at 500, the main chunk
 *   npm run bench -- delegation    # what a delegation adds to a turn; 100 concurrent chains of depth 3
 *
 * See bench/README.md for what each figure means.
 */
import { benchChat } from './chat.js';
import { benchCliStartup } from './cli-startup.js';
import { benchCluster } from './cluster.js';
import { benchDelegation } from './delegation.js';
import { benchHardening } from './hardening.js';
import { benchHttp } from './http.js';
import { benchOutbound } from './outbound.js';
import { benchSearchCore } from './search-core.js';
import { benchSearchHttp, searchSizes } from './search-http.js';
import { benchWebCanvas } from './web-canvas.js';

type Figures = Record<string, unknown>;

interface Bench {
  name: string;
  description: string;
  /** Resolves with the figures, or with a reason to skip. */
  run(): Promise<Figures | { skipped: string }>;
}

const BENCHES: Bench[] = [
  {
    name: 'http',
    description: 'authenticated GET /api/org/structures/{id} vs a bare Fastify route',
    run: benchHttp,
  },
  {
    name: 'search-core',
    description: 'search core on 1,000, 10,000 and 50,000 generated skills, beside raw MiniSearch',
    async run() {
      const figures: Figures = {};
      for (const n of searchSizes()) {
        for (const [key, value] of Object.entries(await benchSearchCore(n))) figures[`search-core.${n}.${key}`] = value;
      }
      return figures;
    },
  },
  {
    name: 'search-http',
    description: 'org serve vs bare Fastify + raw MiniSearch on 1,000, 10,000 and 50,000 skills: start-up, search over HTTP, RSS',
    async run() {
      const figures: Figures = {};
      for (const n of searchSizes()) Object.assign(figures, await benchSearchHttp(n));
      return figures;
    },
  },
  {
    name: 'chat',
    description: 'chat: time to first event, container relay throughput, 1,000 open streams',
    run: benchChat,
  },
  {
    name: 'delegation',
    description: 'delegation: what handing a step to another node adds to a local-runtime turn (p50, against the same turn without it), and 100 concurrent chains of depth 3 with no terminal event lost',
    run: benchDelegation,
  },
  {
    name: 'cluster',
    description: 'org serve processes on one PostgreSQL: turns/s and reads/s with 1, 2, 3 instances; cross-instance time to an event',
    run: benchCluster,
  },
  {
    name: 'outbound',
    description: 'memory of a 150 MB tool answer and of 10 replays of a 40 MB run, against unbounded reads of the same bytes',
    run: benchOutbound,
  },
  {
    name: 'hardening',
    description: 'org serve under the prober: fuzzed requests (5xx, non-problem 4xx), malformed HTTP, SIGKILL cycles (stray temp files), slow connections held, RSS kept after 500 streams',
    run: benchHardening,
  },
  {
    name: 'web-canvas',
    description: 'web UI: first render, Tidy up and select-and-centre of a 200-node tree in chromium; layout at 200 and 500 nodes beside dagre; main chunk size',
    run: benchWebCanvas,
  },
  {
    name: 'cli-startup',
    description: 'org --version, org help and org skills --help against node -e 0 and loading the whole app',
    run: () => benchCliStartup(),
  },
];

function format(value: unknown): string {
  if (typeof value === 'number') return Number.isInteger(value) ? String(value) : value.toFixed(3);
  return typeof value === 'string' ? value : JSON.stringify(value);
}

async function main(args: string[]): Promise<number> {
  const unknown = args.filter((arg) => !BENCHES.some((bench) => bench.name === arg));
  if (unknown.length > 0) {
    console.error(`unknown benchmark(s): ${unknown.join(', ')}\navailable:`);
    for (const bench of BENCHES) console.error(`  ${bench.name.padEnd(12)} ${bench.description}`);
    return 2;
  }
  const selected = args.length === 0 ? BENCHES : BENCHES.filter((bench) => args.includes(bench.name));
  const all: Figures = {};
  let failed = false;
  for (const bench of selected) {
    console.log(`\n== ${bench.name}: ${bench.description}`);
    try {
      const result = await bench.run();
      if ('skipped' in result && Object.keys(result).length === 1) {
        console.log(`skipped: ${String(result.skipped)}`);
        continue;
      }
      Object.assign(all, result);
    } catch (error) {
      failed = true;
      console.error(`${bench.name} failed:`, error);
    }
  }
  if (Object.keys(all).length > 0) {
    console.log('\n== all figures');
    const width = Math.max(...Object.keys(all).map((key) => key.length));
    for (const [key, value] of Object.entries(all)) console.log(`${key.padEnd(width)}  ${format(value)}`);
  }
  return failed ? 1 : 0;
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    console.error(error);
    process.exitCode = 1;
  },
);
