/**
 * The reliability figures of issue 28's leftovers, asserted on bounded runs of the prober
 * (test/helpers/prober.ts) against real listening servers: fuzzed requests over HTTP get
 * no 5xx, problem details on every 4xx of the API and an answer each; malformed HTTP gets a
 * problem or nothing; and `org serve` killed with SIGKILL in the middle of writes, again and again,
 * leaves no temp file in its home once it has started again. `npm run bench -- hardening`
 * prints the same figures on larger runs, with the RSS kept after many streams and the slow
 * connections one address can hold.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt } from './helpers/child.js';
import { startInstance, type TestInstance } from './helpers/instance.js';
import { fuzzOverHttp, killCycles, PROBER_INBOUND_SECRET, probeProtocol } from './helpers/prober.js';

const RUNS = Number(process.env.ORG_PROBER_RUNS ?? 1000);
const SEED = process.env.ORG_FUZZ_SEED ? Number(process.env.ORG_FUZZ_SEED) : (Date.now() ^ (process.pid << 10)) | 0;


describe('hardening figures on a listening server', () => {
  let t: TestInstance;

  beforeAll(async () => {
    t = await startInstance({ listen: true, config: { rateLimit: 10_000_000, authFailureLimit: 10_000_000, inboundSecret: PROBER_INBOUND_SECRET, syncTimeoutMs: 60_000 } });
  });
  afterAll(async () => {
    await t.close();
  });

  it(`fuzzed requests over HTTP get no 5xx, problem details on every 4xx, and an answer each (${RUNS} requests, seed ${SEED})`, { timeout: 300_000 }, async () => {
    const figures = await fuzzOverHttp({ url: t.url, home: t.home }, RUNS, SEED);
    expect(figures.examples, `seed ${SEED}`).toEqual([]);
    expect(figures.serverErrors).toBe(0);
    expect(figures.nonProblem4xx).toBe(0);
    expect(figures.hung).toBe(0);
    expect(figures.sent).toBeGreaterThan(RUNS * 0.9);
  });

  it('malformed HTTP gets a problem (or a closed connection), never anything else', async () => {
    const figures = await probeProtocol(t.url);
    expect(figures.examples).toEqual([]);
    expect(figures.nonProblem).toBe(0);
  });
});

describe('org serve killed mid-write', () => {
  it('leaves no temp file in its home once started again (3 SIGKILL cycles)', { timeout: 300_000 }, async () => {
    ensureBuilt();
    const figures = await killCycles(3);
    expect(figures.writes).toBeGreaterThan(0);
    expect(figures.stray).toEqual([]);
  });
});
