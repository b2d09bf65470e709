/**
 * Hash routing: `#/` structures, `#/w/<id>` canvas (`/n/<role_id>` selects a node,
 * `/n/<role_id>/r/<run_id>` opens its chat at one turn),
 * `#/w/<id>/skills[/…]`, `#/w/<id>/access`, `#/w/<id>/webhooks`, `#/w/<id>/log`. Secrets in the fragment
 * (`#token=`, `#invite=`) are handled by the app shell before routing.
 */
import { createContext, useContext, useEffect, useRef, useState, type RefObject } from 'react';

/** A parsed route. */
export type Route =
  | { page: 'home' }
  | { page: 'canvas'; structureId: string; roleId?: string; runId?: string }
  | { page: 'skills'; structureId: string; view: SkillsView }
  | { page: 'access'; structureId: string }
  | { page: 'webhooks'; structureId: string }
  | { page: 'log'; structureId: string }
  | { page: 'not-found'; path: string };

/** The sub-views of the Skills Editor. */
export type SkillsView =
  | { tab: 'catalog' }
  | { tab: 'drafts'; slug?: string }
  | { tab: 'deleted' }
  | { tab: 'search' }
  | { tab: 'problems' }
  /** `from`: a request to start the skill from (the gap report). */
  | { tab: 'new'; from?: string }
  | { tab: 'gaps' }
  | { tab: 'skill'; slug: string }
  | { tab: 'edit'; slug: string }
  /** One version of a skill (a commit or a kept copy): view, compare with the current text, restore. */
  | { tab: 'version'; slug: string; version: string; compare?: boolean };

const seg = (value: string | undefined) => (value === undefined ? undefined : decodeURIComponent(value));

/** Parses a route path (the fragment without `#`). */
export function parseRoute(path: string): Route {
  const parts = path.split('?')[0]!.split('/').filter(Boolean);
  if (parts.length === 0) return { page: 'home' };
  if (parts[0] !== 'w' || !parts[1]) return { page: 'not-found', path };
  const structureId = seg(parts[1])!;
  const [, , section, a, b] = parts;
  if (section === undefined) return { page: 'canvas', structureId };
  if (section === 'n' && a) return b === 'r' && parts[5] ? { page: 'canvas', structureId, roleId: seg(a)!, runId: seg(parts[5])! } : { page: 'canvas', structureId, roleId: seg(a)! };
  if (section === 'access') return { page: 'access', structureId };
  if (section === 'webhooks') return { page: 'webhooks', structureId };
  if (section === 'log') return { page: 'log', structureId };
  if (section === 'skills') {
    if (a === undefined) return { page: 'skills', structureId, view: { tab: 'catalog' } };
    if (a === 'drafts') return { page: 'skills', structureId, view: b ? { tab: 'drafts', slug: seg(b)! } : { tab: 'drafts' } };
    if (a === 'new') {
      const from = new URLSearchParams(path.split('?')[1] ?? '').get('from');
      return { page: 'skills', structureId, view: from ? { tab: 'new', from } : { tab: 'new' } };
    }
    if (a === 'deleted' || a === 'search' || a === 'problems' || a === 'gaps') return { page: 'skills', structureId, view: { tab: a } };
    if (a === 's' && b && parts[5] === 'v' && parts[6]) {
      const compare = new URLSearchParams(path.split('?')[1] ?? '').has('compare');
      return { page: 'skills', structureId, view: { tab: 'version', slug: seg(b)!, version: seg(parts[6])!, ...(compare ? { compare } : {}) } };
    }
    if (a === 's' && b) return { page: 'skills', structureId, view: parts[5] === 'edit' ? { tab: 'edit', slug: seg(b)! } : { tab: 'skill', slug: seg(b)! } };
  }
  return { page: 'not-found', path };
}

/** Route links. */
export const href = {
  home: () => '#/',
  canvas: (structureId: string, roleId?: string) => `#/w/${encodeURIComponent(structureId)}${roleId ? `/n/${encodeURIComponent(roleId)}` : ''}`,
  /** A node's chat at one of its turns (a delegated run, followed live while it runs). */
  run: (structureId: string, roleId: string, runId: string) => `#/w/${encodeURIComponent(structureId)}/n/${encodeURIComponent(roleId)}/r/${encodeURIComponent(runId)}`,
  skills: (structureId: string, sub = '') => `#/w/${encodeURIComponent(structureId)}/skills${sub ? `/${sub}` : ''}`,
  skill: (structureId: string, slug: string, edit = false) => `#/w/${encodeURIComponent(structureId)}/skills/s/${encodeURIComponent(slug)}${edit ? '/edit' : ''}`,
  /** A version of a skill; `compare`: opened on the comparison with the current text. */
  version: (structureId: string, slug: string, version: string, compare = false) =>
    `#/w/${encodeURIComponent(structureId)}/skills/s/${encodeURIComponent(slug)}/v/${encodeURIComponent(version)}${compare ? '?compare' : ''}`,
  draft: (structureId: string, slug: string) => `#/w/${encodeURIComponent(structureId)}/skills/drafts/${encodeURIComponent(slug)}`,
  access: (structureId: string) => `#/w/${encodeURIComponent(structureId)}/access`,
  webhooks: (structureId: string) => `#/w/${encodeURIComponent(structureId)}/webhooks`,
  log: (structureId: string) => `#/w/${encodeURIComponent(structureId)}/log`,
};

/** Navigates to a route link. */
export function navigate(link: string): void {
  location.hash = link.startsWith('#') ? link.slice(1) : link;
}

/**
 * What would be lost by leaving the current page (a sentence to confirm with), or null.
 * Held by the app shell and set by pages with unsaved work through {@link useLeaveGuard}.
 */
export type LeaveGuard = RefObject<string | null>;

/** The app's leave guard, for {@link useLeaveGuard}. */
export const LeaveGuardContext = createContext<LeaveGuard | null>(null);

/**
 * The current fragment, updated on every hashchange. While the guard holds a message,
 * leaving asks first; declining puts the address back without a history entry.
 */
export function useHash(): { hash: string; guard: LeaveGuard } {
  const [hash, setHash] = useState(() => location.hash);
  const guard = useRef<string | null>(null);
  const current = useRef(hash);
  useEffect(() => {
    const onChange = () => {
      if (location.hash === current.current) return;
      if (guard.current && !window.confirm(guard.current)) {
        history.replaceState(null, '', `${location.pathname}${location.search}${current.current}`);
        return;
      }
      guard.current = null;
      current.current = location.hash;
      setHash(location.hash);
    };
    window.addEventListener('hashchange', onChange);
    return () => window.removeEventListener('hashchange', onChange);
  }, []);
  return { hash, guard };
}

/**
 * Asks before leaving the page while `message` is set (unsaved changes): in-app links
 * through the router, reloads and closing the tab through the browser's own prompt.
 * Returns `release`, to call right before a navigation that saved the work.
 */
export function useLeaveGuard(message: string | null): () => void {
  const guard = useContext(LeaveGuardContext);
  useEffect(() => {
    if (!guard || !message) return;
    guard.current = message;
    const onBeforeUnload = (event: BeforeUnloadEvent) => event.preventDefault();
    window.addEventListener('beforeunload', onBeforeUnload);
    return () => {
      if (guard.current === message) guard.current = null;
      window.removeEventListener('beforeunload', onBeforeUnload);
    };
  }, [guard, message]);
  return () => {
    if (guard) guard.current = null;
  };
}
