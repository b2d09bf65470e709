/**
 * The UI's pure pieces: failures explained in the user's words (no status codes, no
 * schema paths), the toast queue, which artifacts get which preview, who wrote a message,
 * and the routes of skill versions.
 */
import { describe, expect, it } from 'vitest';
import { ApiError } from '../src/api/client';
import { href, parseRoute } from '../src/router';
import { authorName } from '../src/chat/authors';
import { previewKind, typeLabel } from '../src/shelf/kinds';
import { explain, fieldLabel, plainDetail, plainMessage } from '../src/ui/explain';
import { MAX_TOASTS, initialToasts, toastReducer } from '../src/ui/toasts';

const problem = (status: number, extra: Record<string, unknown> = {}) => new ApiError({ status, title: 'x', type: 'urn:x', ...extra });

describe('explain', () => {
  it('names the form’s fields and says validator phrases in plain words', () => {
    const explained = explain(
      problem(400, {
        code: 'invalid_request',
        detail: 'body.frontmatter.name must NOT have fewer than 1 characters (and 1 more)',
        errors: [
          { path: 'body.frontmatter.name', message: 'must NOT have fewer than 1 characters' },
          { path: 'body.role', message: 'must be equal to constant' },
        ],
      }),
      { name: 'Name' },
    );
    expect(explained.title).toBe('Some of what you entered was not accepted.');
    expect(explained.fields).toEqual([
      { label: 'Name', message: 'cannot be empty' },
      { label: 'Role', message: 'is not one of the allowed values' },
    ]);
    // The schema-path detail is not repeated when the fields say it better.
    expect(explained.detail).toBeUndefined();
    expect(JSON.stringify(explained)).not.toMatch(/body\.|400/);
  });

  it('speaks the pages’ words, not the API’s: field names and jargon in details and field labels', () => {
    expect(plainDetail('a node with role_id exec-cfo already exists in this structure')).toBe('a node with role id exec-cfo already exists in this workspace');
    expect(plainDetail('node exec-cto has 3 child node(s) (a-b, c-d, e-f); delete or move them first')).toBe('node exec-cto has 3 reports (a-b, c-d, e-f); delete or move them first');
    expect(plainDetail('structure 7d3c1a8e-2b4f-4c6d-9e0a-1b2c3d4e5f60 not found')).toBe('workspace 7d3c1a8e-2b4f-4c6d-9e0a-1b2c3d4e5f60 not found');
    expect(fieldLabel('body.container_url')).toBe('Container URL');
    expect(fieldLabel('body.parent_id')).toBe('Reports to');
  });

  it('says what happened and what to do for each kind of failure', () => {
    expect(explain(problem(409, { code: 'conflict', detail: 'node exec-cto has 1 child node(s); delete or move them first' }))).toEqual({
      title: 'That clashes with what is already there.',
      detail: 'Node exec-cto has 1 report; delete or move them first.',
      fields: [],
    });
    expect(explain(problem(409, { code: 'already_exists', detail: 'a skill with the slug x already exists' })).title).toBe('That already exists.');
    expect(explain(problem(403)).hint).toContain('owner');
    expect(explain(problem(401)).hint).toBe('Sign in again with a current token.');
    expect(explain(problem(429, { retry_after: 12 })).hint).toBe('Wait 12 s and try again.');
    expect(explain(problem(502)).title).toBe('The server ran into a problem.');
    expect(explain(new TypeError('Failed to fetch')).title).toBe('The server could not be reached.');
    expect(explain(new Error('there is no page at /x')).title).toBe('There is no page at /x.');
  });

  it('turns field paths and phrases into words', () => {
    expect(fieldLabel('body.attachments.0.content_base64')).toBe('Content base64');
    expect(fieldLabel('querystring.limit', { limit: 'Limit' })).toBe('Limit');
    expect(plainMessage('must match pattern "^[a-z]+$"')).toBe('is not in the expected form');
    expect(plainMessage('must be <= 500')).toBe('can be at most 500');
    expect(plainMessage('must NOT have fewer than 1 items')).toBe('needs at least one choice');
    expect(plainMessage('must have at least 1 item(s)')).toBe('needs at least one choice');
    expect(plainMessage('must have at least 2 item(s)')).toBe('needs at least 2 choices');
    expect(plainMessage('something the server wrote')).toBe('something the server wrote');
  });
});

describe('toasts', () => {
  it('queue with ids, keep the newest few, mark one busy and dismiss it', () => {
    let state = initialToasts;
    for (let n = 0; n < MAX_TOASTS + 2; n++) state = toastReducer(state, { type: 'show', toast: { message: `t${n}`, tone: 'info' } });
    expect(state.toasts.map((toast) => toast.message)).toEqual(['t2', 't3', 't4']);
    const id = state.toasts[0]!.id;
    state = toastReducer(state, { type: 'busy', id });
    expect(state.toasts[0]!.busy).toBe(true);
    state = toastReducer(state, { type: 'dismiss', id });
    expect(state.toasts.map((toast) => toast.message)).toEqual(['t3', 't4']);
  });
});

describe('artifact previews', () => {
  it('preview markdown, text and images, and nothing else', () => {
    expect(previewKind({ name: 'run-report.md', content_type: 'text/markdown' })).toBe('markdown');
    expect(previewKind({ name: 'notes.md', content_type: 'application/octet-stream' })).toBe('markdown');
    expect(previewKind({ name: 'data.csv', content_type: 'text/csv; charset=utf-8' })).toBe('text');
    expect(previewKind({ name: 'a.json', content_type: 'application/json' })).toBe('text');
    expect(previewKind({ name: 'log.txt', content_type: 'application/octet-stream' })).toBe('text');
    expect(previewKind({ name: 'pic.png', content_type: 'image/png' })).toBe('image');
    expect(previewKind({ name: 'deck.pdf', content_type: 'application/pdf' })).toBe('none');
    expect(previewKind({ name: 'blob.bin', content_type: 'application/octet-stream' })).toBe('none');
    expect(typeLabel('image/svg+xml')).toBe('SVG image');
    expect(typeLabel('text/markdown')).toBe('Markdown');
  });
});

describe('skill version routes', () => {
  it('round-trip a commit and a kept copy, viewed or compared, and a stale restore is explained', () => {
    const sid = '7d3c1a8e-2b4f-4c6d-9e0a-1b2c3d4e5f60';
    const kept = 'kept-2026-11-29T02-27-05.123Z-2';
    expect(parseRoute(href.version(sid, 'close-books', 'abcdef1234567').slice(1))).toEqual({ page: 'skills', structureId: sid, view: { tab: 'version', slug: 'close-books', version: 'abcdef1234567' } });
    expect(parseRoute(href.version(sid, 'close-books', kept, true).slice(1))).toEqual({ page: 'skills', structureId: sid, view: { tab: 'version', slug: 'close-books', version: kept, compare: true } });
    // The skill page itself is not a version.
    expect(parseRoute(href.skill(sid, 'close-books').slice(1))).toEqual({ page: 'skills', structureId: sid, view: { tab: 'skill', slug: 'close-books' } });
    expect(explain(problem(412)).title).toBe('It changed since you opened it.');
  });
});

describe('message authors', () => {
  it('name each kind of author in words, "You" only for the reader', () => {
    const owen = { kind: 'user' as const, user: { id: 'u1', email: 'owen@example.com' } };
    expect(authorName({ author: { kind: 'user', id: 'u1', label: 'owen@example.com' } }, owen)).toBe('You');
    expect(authorName({ author: { kind: 'user', id: 'u2', label: 'olga@example.com' } }, owen)).toBe('olga@example.com');
    expect(authorName({ author: { kind: 'admin', label: 'administrator' } }, owen)).toBe('Administrator');
    expect(authorName({ author: { kind: 'admin', label: 'administrator' } }, { kind: 'admin' })).toBe('You');
    expect(authorName({ author: { kind: 'node_key', id: 'k1', label: 'laptop agent' } }, owen)).toBe('Key “laptop agent”');
    expect(authorName({ author: { kind: 'email', id: 'ana@example.org', label: 'ana@example.org' } }, owen)).toBe('ana@example.org (e-mail)');
    expect(authorName({ author: { kind: 'channel', id: 'U42', label: 'U42' } }, owen)).toBe('U42 (channel)');
    expect(authorName({ author: { kind: 'node', id: 'exec-ceo', label: 'Chief Executive Officer' } }, owen)).toBe('Chief Executive Officer (delegated)');
    // Stored before authors were recorded.
    expect(authorName({}, owen)).toBe('Sender not recorded');
  });
});
