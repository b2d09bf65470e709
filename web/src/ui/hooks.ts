/** Small browser hooks shared by the pages: the page title and media queries. */
import { useCallback, useEffect, useState } from 'react';

/** Sets the document title to `<page> · org` while mounted (screen readers announce it on navigation). */
export function useTitle(page: string | undefined): void {
  useEffect(() => {
    document.title = page ? `${page} · org` : 'org';
  }, [page]);
}

/** True while the media query matches (for layouts that differ in structure, not just style). */
export function useMediaQuery(query: string): boolean {
  const [matches, setMatches] = useState(() => typeof window !== 'undefined' && window.matchMedia(query).matches);
  useEffect(() => {
    const list = window.matchMedia(query);
    const onChange = () => setMatches(list.matches);
    onChange();
    list.addEventListener('change', onChange);
    return () => list.removeEventListener('change', onChange);
  }, [query]);
  return matches;
}

/** Phones and narrow windows: the node list replaces the canvas, the chat takes the screen. */
export const NARROW = '(max-width: 760px)';

/**
 * An action a form runs: `busy` while it runs, and what it threw until the next run or a
 * dismissal (`setError(null)`); other handlers of the same section may report into
 * `error` too.
 */
export function useAction() {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const run = useCallback(async (work: () => Promise<void>) => {
    setBusy(true);
    setError(null);
    try {
      await work();
    } catch (failure) {
      setError(failure);
    } finally {
      setBusy(false);
    }
  }, []);
  return { busy, error, setError, run };
}
