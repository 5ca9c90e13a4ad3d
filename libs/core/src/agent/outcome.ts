import type { JsonValue } from '../json/canonical-json.js';

/**
 * What an agent may return as an output: bytes verbatim, a string as UTF-8, anything else as
 * canonical JSON. `undefined` (or an empty string/byte array) publishes nothing.
 */
export type OutputValue = Uint8Array | string | JsonValue | undefined;

/** The activation finished; `output` (when non-empty) is published on `agents.output.<agent>.<key>`. */
export interface Complete {
  readonly kind: 'complete';
  readonly output?: OutputValue;
}

/** Options of a suspension. */
export interface SuspendOptions {
  /** Opaque resume state handed back as `ctx.snapshot` on resume. */
  readonly snapshot?: Uint8Array | string;
  /** Upper bound of the wait; the deadline is also capped by the earliest staged intent expiry. */
  readonly timeoutMs?: number;
}

/**
 * The activation waits for the intents it staged (tool results, approvals). The runtime persists
 * a continuation, frees the key and resumes the agent when an answer re-enters the key.
 */
export interface Suspend extends SuspendOptions {
  readonly kind: 'suspend';
}

/** The only two things an activation can end with. */
export type Outcome = Complete | Suspend;

/** True when `value` is a well-formed outcome (agents may be plain JavaScript). */
export function isOutcome(value: unknown): value is Outcome {
  if (typeof value !== 'object' || value === null) return false;
  const kind = (value as { kind?: unknown }).kind;
  return kind === 'complete' || kind === 'suspend';
}
