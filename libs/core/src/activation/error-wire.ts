/**
 * An error as it crosses a thread boundary (a worker-isolated agent, docs/decisions/0070): plain
 * data that survives structured cloning, rebuilt on the other side with the runtime class that
 * decides retry. Only the class's retry meaning crosses (terminal, retryable with its delay, or
 * plain), plus name and message: a subclass of the agent's own arrives as its base class with its
 * name kept, so `instanceof` on an agent-defined class does not hold across the boundary.
 */
import { RetryableError, TerminalError } from '../errors/runtime-error.js';

/** The structured-clone form of an error. */
export interface ErrorWire {
  readonly name: string;
  readonly message: string;
  readonly stack?: string;
  /** The runtime class it is rebuilt as: this is what decides retry (terminal, retryable, plain = retryable per the house rule). */
  readonly kind: 'terminal' | 'retryable' | 'plain';
  readonly retryAfterMs?: number;
}

/** The wire form of anything thrown. Pure; never throws. */
export function errorToWire(thrown: unknown): ErrorWire {
  if (!(thrown instanceof Error)) return { name: 'Error', message: typeof thrown === 'string' ? thrown : `non-error thrown: ${String(thrown)}`, kind: 'plain' };
  const kind = thrown instanceof TerminalError ? 'terminal' : thrown instanceof RetryableError ? 'retryable' : 'plain';
  const base = { name: thrown.name, message: thrown.message, ...(thrown.stack !== undefined ? { stack: thrown.stack } : {}), kind } as const;
  return thrown instanceof RetryableError && thrown.retryAfterMs !== undefined ? { ...base, retryAfterMs: thrown.retryAfterMs } : base;
}

/**
 * The error a wire form stands for: a `TerminalError`, a `RetryableError` (with its delay) or a
 * plain `Error`, carrying the original name, message and stack. Rebuilding the same wire form twice
 * gives equal errors, so a replayed attempt fails with the same record.
 */
export function errorFromWire(wire: ErrorWire): Error {
  const error =
    wire.kind === 'terminal'
      ? new TerminalError(wire.message)
      : wire.kind === 'retryable'
        ? new RetryableError(wire.message, wire.retryAfterMs !== undefined ? { retryAfterMs: wire.retryAfterMs } : {})
        : new Error(wire.message);
  Object.defineProperty(error, 'name', { value: wire.name, enumerable: false, configurable: true, writable: true });
  if (wire.stack !== undefined) error.stack = wire.stack;
  return error;
}
