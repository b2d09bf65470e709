/**
 * The README is for a newcomer (issue 31.14): what org is, the two commands, the
 * walkthroughs and a map of `docs/`, the rest in pages it links. Every link it and the
 * pages hold resolves inside the repository (no contract file that is not there), every
 * page is on the map, the MCP Inspector commands pin the version that runs on Node 20, and
 * the nginx example keeps the caller's X-Request-Id.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, normalize } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from './helpers/child.js';

const read = (path: string) => readFileSync(join(REPO_ROOT, path), 'utf8');
const PAGES = readdirSync(join(REPO_ROOT, 'docs')).filter((name) => name.endsWith('.md'));

/** The relative link targets of a markdown file (external links and pure anchors left out). */
function links(path: string): string[] {
  return [...read(path).matchAll(/\]\(([^)\s#]+)(?:#[^)]*)?\)/g)].map((match) => match[1]!).filter((target) => !/^[a-z]+:/.test(target));
}

describe('the README', () => {
  it('is short: what org is, the two commands, the walkthroughs and a map of docs/', () => {
    const readme = read('README.md');
    expect(readme.split('\n').length).toBeLessThanOrEqual(150);
    expect(readme).toContain('npm install && npm link');
    expect(readme).toMatch(/^org serve\s+#/m);
    for (const heading of ['## Quick start', '## Walkthroughs', '## Documentation']) expect(readme).toContain(heading);
    for (const page of PAGES) expect(readme, `docs/${page} is on the map`).toContain(`(docs/${page})`);
  });

  it('and every page link to files the repository has', () => {
    for (const file of ['README.md', ...PAGES.map((page) => `docs/${page}`)]) {
      for (const target of links(file)) expect(existsSync(normalize(join(REPO_ROOT, dirname(file), target))), `${file} → ${target}`).toBe(true);
      expect(read(file), file).not.toMatch(/\bAPI\.md\b/);
    }
  });

  it('pins the MCP Inspector that runs on Node 20, and the nginx example keeps the caller\'s X-Request-Id', () => {
    // Commands (prose that names the unpinned form to warn against it ends in a backtick).
    const commands = [...read('docs/mcp.md').matchAll(/npx (?:-y )?@modelcontextprotocol\/inspector[^\s`]*`?/g), ...read('README.md').matchAll(/npx (?:-y )?@modelcontextprotocol\/inspector[^\s`]*`?/g)]
      .map((match) => match[0])
      .filter((command) => !command.endsWith('`') || command.includes('@0.17.2'));
    expect(commands.length).toBeGreaterThan(2);
    for (const command of commands) expect(command).toMatch(/inspector@0\.17\.2`?$/);
    const nginx = read('docs/operations.md');
    expect(nginx).toMatch(/map \$http_x_request_id \$org_request_id/);
    expect(nginx).toContain('proxy_set_header X-Request-Id $org_request_id;');
    expect(nginx).not.toContain('proxy_set_header X-Request-Id $request_id;');
    expect(nginx).toContain('proxy_set_header X-Forwarded-Host $host;');
  });
});
