/**
 * The baseline of the search-over-HTTP benchmark: bare Fastify (one route, no auth, no
 * schema, no rate limit) over raw MiniSearch, on the same skill files org serves.
 * Plain JavaScript run by `node` directly, so that no TypeScript loader inflates its
 * start-up time or memory.
 *
 *   node bench/search-bare-server.js <skills-dir> [default|boosted]
 *
 * It reads and parses every `*.md` file (gray-matter), indexes name, tags, summary,
 * category and body, prints `bare: listening on http://127.0.0.1:PORT` once the index is
 * built, and answers `POST /search {query, limit}` with `{matches: [{slug, score, reason}]}`.
 * `default` is `search(query)` with MiniSearch's defaults; `boosted` is the quality floor
 * of the search evaluation (prefix, fuzzy 0.2, boosts name 3, tags 2, summary 2). Both drop
 * common English words, as MiniSearch's documentation suggests: without that, every chat
 * query scores every document on "the" and "how", and the baseline would be needlessly slow.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import Fastify from 'fastify';
import matter from 'gray-matter';
import MiniSearch from 'minisearch';

const [dir, mode = 'default'] = process.argv.slice(2);
if (!dir) {
  console.error('usage: node bench/search-bare-server.js <skills-dir> [default|boosted]');
  process.exit(2);
}

const STOP_WORDS = new Set(
  `a about above after again against all am an and any are as at be because been before being below between both
  but by can could did do does doing down during each few for from further had has have having he her here hers
  him his how i if in into is it its itself just me more most my myself no nor not now of off on once only or other
  our ours out over own same she should so some such than that the their theirs them then there these they this
  those through to too under until up very was we were what when where which while who whom why will with would
  you your yours`.split(/\s+/),
);
const processTerm = (term) => (STOP_WORDS.has(term.toLowerCase()) ? null : term.toLowerCase());

const docs = [];
for (const name of readdirSync(dir)) {
  if (!name.endsWith('.md') || name.startsWith('.')) continue;
  const { data, content } = matter(readFileSync(join(dir, name), 'utf8'), {});
  if (data.status !== 'complete') continue;
  docs.push({
    slug: name.slice(0, -3),
    name: String(data.name ?? ''),
    tags: Array.isArray(data.tags) ? data.tags.join(' ') : '',
    summary: String(data.summary ?? ''),
    category: String(data.category ?? ''),
    body: content,
  });
}
const mini = new MiniSearch({ idField: 'slug', fields: ['name', 'tags', 'summary', 'category', 'body'], processTerm });
mini.addAll(docs);
docs.length = 0;

const options = mode === 'boosted' ? { prefix: true, fuzzy: 0.2, boost: { name: 3, tags: 2, summary: 2 } } : {};
const server = Fastify();
server.post('/search', async (request) => {
  const { query, limit = 5 } = request.body;
  const matches = mini
    .search(query, options)
    .slice(0, limit)
    .map((result) => ({ slug: result.id, score: result.score, reason: `matched ${result.terms.join(', ')}` }));
  return { matches };
});
const address = await server.listen({ host: '127.0.0.1', port: 0 });
console.log(`bare: listening on ${address}`);
