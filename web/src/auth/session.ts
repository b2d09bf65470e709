/**
 * The signed-in token: kept in localStorage, taken once from a `#token=` link (then
 * removed from the address bar), cleared on sign-out.
 */

const KEY = 'org.token';

/** The stored token, if any. */
export function storedToken(): string | null {
  try {
    return localStorage.getItem(KEY);
  } catch {
    return null;
  }
}

export function storeToken(token: string): void {
  localStorage.setItem(KEY, token);
}

export function clearToken(): void {
  localStorage.removeItem(KEY);
}

/** What the address bar's fragment carries: a sign-in token, an invite, or a route. */
export type Fragment = { kind: 'token'; token: string } | { kind: 'invite'; token: string } | { kind: 'route'; path: string };

/** Parses a location hash (`#token=…`, `#invite=…`, or `#/route`). */
export function parseFragment(hash: string): Fragment {
  const text = hash.startsWith('#') ? hash.slice(1) : hash;
  const match = /^(token|invite)=([^&]+)/.exec(text);
  if (match) {
    const token = decodeURIComponent(match[2] ?? '');
    return match[1] === 'token' ? { kind: 'token', token } : { kind: 'invite', token };
  }
  return { kind: 'route', path: text.startsWith('/') ? text : `/${text}` };
}

/** Replaces the address bar's fragment without adding a history entry (drops secrets from it). */
export function replaceFragment(path: string): void {
  history.replaceState(null, '', `${location.pathname}${location.search}#${path}`);
  // replaceState fires no hashchange; tell the router.
  window.dispatchEvent(new HashChangeEvent('hashchange'));
}
