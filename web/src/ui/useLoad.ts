/**
 * Data loading hook: runs a loader, keeps its data, error and a reload function. A load
 * that failed because the server could not be reached (or was unavailable) is tried again
 * by itself, sooner when the browser comes back online, so a page recovers without a reload.
 */
import { useCallback, useEffect, useRef, useState } from 'react';
import { ApiError } from '../api/client';

/** First pause before loading again after the server could not be reached; doubled up to {@link RETRY_MAX_MS}. */
const RETRY_FIRST_MS = 1_000;
const RETRY_MAX_MS = 15_000;

/** True for failures that go away by themselves: no connection, or a server busy or restarting. */
export function isTransientFailure(error: unknown): boolean {
  if (error instanceof TypeError) return true;
  return error instanceof ApiError && (error.status === 502 || error.status === 503 || error.status === 504);
}

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

  // The server could not be reached: try again, with growing pauses, and at once when back online.
  const retryDelay = useRef(RETRY_FIRST_MS);
  useEffect(() => {
    if (!isTransientFailure(error)) {
      if (error === null) retryDelay.current = RETRY_FIRST_MS;
      return;
    }
    const again = () => void run(true);
    const timer = window.setTimeout(again, retryDelay.current);
    retryDelay.current = Math.min(retryDelay.current * 2, RETRY_MAX_MS);
    window.addEventListener('online', again);
    return () => {
      window.clearTimeout(timer);
      window.removeEventListener('online', again);
    };
  }, [error, run]);

  // Data set here is newer than any load still in flight: such a load's answer is dropped.
  const replace = useCallback((next: T) => {
    ++generation.current;
    setData(next);
    setLoading(false);
  }, []);

  return { data, error, loading, reload: () => run(true), setData: replace };
}
