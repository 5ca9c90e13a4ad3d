import type { Complete, OutputValue, Suspend, SuspendOptions } from '#core';

/**
 * Ends the activation. `output` (bytes verbatim, a string as UTF-8, anything else as canonical
 * JSON; nothing when empty) is published on `agents.output.<agent>.<key>` after the commit,
 * with a message id derived from (agent, key, seq), so a retry or replay publishes it once.
 * Equivalent to returning `{ kind: 'complete', output }`.
 */
export function complete(output?: OutputValue): Complete {
  return output === undefined ? { kind: 'complete' } : { kind: 'complete', output };
}

/**
 * Ends the activation waiting for the intents it staged. The runtime persists a continuation
 * (seq, step index, pending intent ids, `snapshot`, deadline), frees the key, and resumes the
 * agent with `ctx.isResume` when a result or approval re-enters the key before the deadline.
 * Equivalent to returning `{ kind: 'suspend', ...options }`.
 */
export function suspend(options: SuspendOptions = {}): Suspend {
  return { kind: 'suspend', ...options };
}
