/**
 * Loads a view's JSON, again whenever a live update names one of its topics, and every
 * `everyMs` as a fallback. Keeps the last good data while a reload runs or fails.
 */
import { useCallback, useContext, useEffect, useState } from 'preact/hooks';
import { api, ApiError } from './api.js';
import { LiveContext } from './live-context.js';

export interface ViewState<T> {
  readonly data: T | undefined;
  readonly error: string | undefined;
  readonly reload: () => void;
}

export function useView<T>(path: string | null, topics: readonly string[], everyMs = 10_000): ViewState<T> {
  const [data, setData] = useState<T | undefined>(undefined);
  const [error, setError] = useState<string | undefined>(undefined);
  const live = useContext(LiveContext);
  const reload = useCallback(() => {
    if (path === null) return;
    api<T>(path)
      .then((value) => {
        setData(value);
        setError(undefined);
      })
      .catch((e: unknown) => setError(e instanceof ApiError ? `${e.message} (HTTP ${e.status})` : String(e)));
  }, [path]);
  useEffect(() => {
    reload();
    const timer = setInterval(reload, everyMs);
    const remove = live.subscribe((topic) => {
      if (topics.includes(topic)) reload();
    });
    return () => {
      clearInterval(timer);
      remove();
    };
  }, [reload, everyMs, live, topics.join(',')]);
  return { data, error, reload };
}

/** The current time, ticking every second (countdowns). */
export function useNow(): number {
  const [now, setNow] = useState(Date.now());
  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now()), 1_000);
    return () => clearInterval(timer);
  }, []);
  return now;
}
