/**
 * Entry of `npm run bench` (`npm run build && tsx bench/run.ts`). Runs every benchmark,
 * or those named on the command line, and prints every figure at the end:
 *
 *   npm run bench                  # all
 *   npm run bench -- http          # only the HTTP benchmark
 *   npm run bench -- search-core   # only the search-core benchmark (1,000 and 10,000 skills)
 *
 * See bench/README.md for what each figure means.
 */
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { benchChat } from './chat.js';
import { benchHttp } from './http.js';

type Figures = Record<string, unknown>;

interface Bench {
  name: string;
  description: string;
  /** Resolves with the figures, or with a reason to skip. */
  run(): Promise<Figures | { skipped: string }>;
}

/** bench/search-core.ts is optional (written with the skill library); loaded only if present. */
async function loadSearchCore(): Promise<((n: number) => Promise<unknown>) | string> {
  const here = (name: string) => fileURLToPath(new URL(name, import.meta.url));
  if (!existsSync(here('./search-core.ts')) && !existsSync(here('./search-core.js'))) return 'bench/search-core.ts does not exist yet';
  // A variable specifier: the module may not exist when this file is type-checked.
  const specifier = './search-core.js';
  const module = (await import(specifier)) as { benchSearchCore?: unknown };
  if (typeof module.benchSearchCore !== 'function') return 'bench/search-core.ts does not export benchSearchCore(n)';
  return module.benchSearchCore as (n: number) => Promise<unknown>;
}

const BENCHES: Bench[] = [
  {
    name: 'http',
    description: 'authenticated GET /api/org/structures/{id} vs a bare Fastify route',
    run: benchHttp,
  },
  {
    name: 'search-core',
    description: 'search core on 1,000 and 10,000 generated skills',
    async run() {
      const benchSearchCore = await loadSearchCore();
      if (typeof benchSearchCore === 'string') return { skipped: benchSearchCore };
      const figures: Figures = {};
      for (const n of [1_000, 10_000]) {
        const result = await benchSearchCore(n);
        if (result && typeof result === 'object') {
          for (const [key, value] of Object.entries(result)) figures[`search-core.${n}.${key}`] = value;
        } else {
          figures[`search-core.${n}`] = result;
        }
      }
      return figures;
    },
  },
  {
    name: 'chat',
    description: 'chat: time to first event, container relay throughput, 1,000 open streams',
    run: benchChat,
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
