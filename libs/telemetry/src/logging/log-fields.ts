/** Fields every log line written inside a scope carries (e.g. the agent and key of an activation). */
export interface LogFields {
  readonly agent?: string;
  /** The entity key as its key token (never raw key bytes, never a payload). */
  readonly key?: string;
  /** The intent an effector line is about. */
  readonly intent?: string;
}

let current: LogFields | undefined;

/**
 * Runs `fn` with `fields` added to every log line written during its synchronous extent: the
 * scope ends when `fn` returns (or throws), so a line written after an `await` inside `fn` does
 * not carry them. Nested scopes merge, the inner value winning. No AsyncLocalStorage (whose first
 * run enables promise hooks for the whole process on Node 20, decision 0076): code that logs about
 * an element after an await passes its fields explicitly or opens a scope of its own around the
 * synchronous call that logs (the traced observers do, through `TraceScopes.run`).
 */
export function withLogFields<T>(fields: LogFields, fn: () => T): T {
  const outer = current;
  current = outer === undefined ? fields : { ...outer, ...fields };
  try {
    return fn();
  } finally {
    current = outer;
  }
}

/** The fields of the current scope, if any. */
export function currentLogFields(): LogFields | undefined {
  return current;
}
