import { AsyncLocalStorage } from 'node:async_hooks';

/** Fields every log line written inside a scope carries (e.g. the agent and key of an activation). */
export interface LogFields {
  readonly agent?: string;
  /** The entity key as its key token (never raw key bytes, never a payload). */
  readonly key?: string;
  /** The intent an effector line is about. */
  readonly intent?: string;
}

const scope = new AsyncLocalStorage<LogFields>();

/**
 * Runs `fn` with `fields` added to every log line written inside it, including asynchronously
 * (the scope follows promises and timers). Nested scopes merge, the inner value winning.
 */
export function withLogFields<T>(fields: LogFields, fn: () => T): T {
  const outer = scope.getStore();
  return scope.run(outer === undefined ? fields : { ...outer, ...fields }, fn);
}

/** The fields of the current scope, if any. */
export function currentLogFields(): LogFields | undefined {
  return scope.getStore();
}
