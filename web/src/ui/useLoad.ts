/** Data loading hook: runs a loader, keeps its data, error and a reload function. */
import { useCallback, useEffect, useRef, useState } from 'react';

/** State of a load. */
export interface Loaded<T> {
  data: T | undefined;
  error: unknown;
  loading: boolean;
  /** Loads again (keeping the old data shown meanwhile). */
  reload: () => Promise<void>;
  /** Replaces the data locally (after a write whose result is known). */
  setData: (data: T) => void;
}

/**
 * Loads with `loader` whenever `deps` change; stale answers (from earlier deps) are
 * dropped. `intervalMs` polls while the page is visible.
 */
export function useLoad<T>(loader: (signal: AbortSignal) => Promise<T>, deps: unknown[], intervalMs?: number): Loaded<T> {
  const [data, setData] = useState<T | undefined>(undefined);
  const [error, setError] = useState<unknown>(null);
  const [loading, setLoading] = useState(true);
  const generation = useRef(0);
  const loaderRef = useRef(loader);
  loaderRef.current = loader;

  const run = useCallback(async (quiet: boolean) => {
    const mine = ++generation.current;
    const controller = new AbortController();
    if (!quiet) setLoading(true);
    try {
      const result = await loaderRef.current(controller.signal);
      if (mine !== generation.current) return;
      setData(result);
      setError(null);
    } catch (failure) {
      if (mine !== generation.current) return;
      setError(failure);
    } finally {
      if (mine === generation.current) setLoading(false);
    }
  }, []);

  useEffect(() => {
    setData(undefined);
    void run(false);
    if (!intervalMs) return () => void ++generation.current;
    const timer = setInterval(() => {
      if (document.visibilityState === 'visible') void run(true);
    }, intervalMs);
    return () => {
      clearInterval(timer);
      ++generation.current;
    };
  }, deps);

  return { data, error, loading, reload: () => run(true), setData };
}
