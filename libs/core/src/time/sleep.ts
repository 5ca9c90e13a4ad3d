import type { Timers } from './clock.js';

/**
 * Waits `ms` on the injected timers; resolves early (never rejects) when `signal` aborts, so a
 * retry loop can check its signal and leave cleanly.
 */
export function sleep(timers: Timers, ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve();
    const onAbort = (): void => {
      cancel();
      resolve();
    };
    const cancel = timers.setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
