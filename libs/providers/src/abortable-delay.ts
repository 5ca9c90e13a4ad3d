/**
 * The one place this lib waits on a timer: FakeLlm latency and provider backoff both go through
 * a `Delay`, so tests inject an instant (or recording) one and production code never sleeps
 * past an abort. Importing this file has no side effects.
 */

/**
 * Waits `ms` milliseconds unless `signal` aborts first. An implementation MUST reject with
 * `signal.reason` when the signal aborts (also when it is already aborted on entry) and MUST
 * NOT resolve after an abort.
 */
export type Delay = (ms: number, signal: AbortSignal) => Promise<void>;

/**
 * The default {@link Delay}: a `setTimeout` that is cleared on abort. Resolves after `ms`
 * (at once for `ms <= 0`); rejects with `signal.reason`, promptly, when the signal aborts.
 *
 * @example
 * ```ts
 * await abortableDelay(250, options.signal); // throws the abort reason if the activation is abandoned
 * ```
 */
export function abortableDelay(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    if (signal.aborted) {
      reject(signal.reason);
      return;
    }
    if (ms <= 0) {
      resolve();
      return;
    }
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(signal.reason);
    };
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal.addEventListener('abort', onAbort, { once: true });
  });
}
