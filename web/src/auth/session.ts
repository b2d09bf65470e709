/**
 * The signed-in token: kept in localStorage, taken once from a `#token=` link (then
 * removed from the address bar), cleared on sign-out, shared by the site's tabs.
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

/**
 * Calls `onChange` with the stored token when another tab of this site stores or clears
 * it (a new token made there, a sign-in or a sign-out); this tab's own writes are not reported.
 */
export function watchStoredToken(onChange: (token: string | null) => void): () => void {
  const listener = (event: StorageEvent) => {
    if (event.key === KEY || event.key === null) onChange(storedToken());
  };
  window.addEventListener('storage', listener);
  return () => window.removeEventListener('storage', listener);
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
