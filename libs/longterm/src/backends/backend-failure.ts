/**
 * The one mapping from a backend driver's failure to the tier's error type: every failure of
 * the store is `LongTermUnavailable` (retryable by type), its message naming the operation and
 * the redacted URI, the driver's text scrubbed of the URI's secrets. Argument errors pass through.
 */
import { ensureError, LongTermUnavailable } from '#core';
import { LongTermArgumentError } from '../errors.js';
import { redactSecrets } from '../redact-uri.js';

/** Runs one backend operation, mapping any driver failure to `LongTermUnavailable`. */
export async function guarded<T>(target: string, uri: string, operation: string, run: () => Promise<T> | T): Promise<T> {
  try {
    return await run();
  } catch (thrown) {
    throw asUnavailable(target, uri, operation, thrown);
  }
}

/**
 * `thrown` as a `LongTermUnavailable` (argument errors and existing unavailability unchanged).
 * The cause is a scrubbed copy of the driver's error (name, code, message and stack without the
 * URI's secrets), never the driver's object itself: a logger printing the whole chain stays clean.
 */
export function asUnavailable(target: string, uri: string, operation: string, thrown: unknown): Error {
  if (thrown instanceof LongTermArgumentError || thrown instanceof LongTermUnavailable) return thrown;
  const error = ensureError(thrown);
  return new LongTermUnavailable(`long-term ${operation} on ${target} failed: ${redactSecrets(error.message, uri)}`, { cause: scrubbed(error, uri) });
}

function scrubbed(error: Error, uri: string): Error {
  const copy = new Error(redactSecrets(error.message, uri));
  copy.name = error.name;
  copy.stack = error.stack === undefined ? undefined : redactSecrets(error.stack, uri);
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'string' || typeof code === 'number') Object.assign(copy, { code });
  return copy;
}

/**
 * `work`, or a `LongTermUnavailable` once `budgetMs` passed first. For clients whose own retry
 * loops outlast the service's deadline while their server is unreachable (the Google clients back
 * off for tens of seconds): the caller hears "unavailable" promptly and retries; the abandoned call
 * may still land later, which the seq guard makes harmless.
 */
export async function within<T>(budgetMs: number, what: string, work: () => Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const call = work();
  const expired = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new LongTermUnavailable(`${what}: no answer within ${budgetMs} ms (unreachable?)`)), budgetMs);
  });
  try {
    return await Promise.race([call, expired]);
  } finally {
    clearTimeout(timer);
    call.catch(() => undefined); // an abandoned call's late failure has no one left to tell
  }
}
