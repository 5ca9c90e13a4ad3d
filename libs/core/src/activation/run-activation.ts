import type { AgentHandler } from '../agent/agent-definition.js';
import { isOutcome, type Complete, type Suspend } from '../agent/outcome.js';
import { ensureError } from '../errors/runtime-error.js';
import type { Timers } from '../time/clock.js';
import { ActivationTimeout } from './activation-timeout.js';
import type { FailurePosition } from './failure-position.js';
import type { StagingContext } from './staging-context.js';

/** How one attempt ended. Only `completed` and `suspended` may be committed as an activation. */
export type ActivationResult =
  | { readonly kind: 'completed'; readonly outcome: Complete }
  | { readonly kind: 'suspended'; readonly outcome: Suspend }
  | { readonly kind: 'failed'; readonly error: Error; readonly position: FailurePosition }
  | { readonly kind: 'timed_out'; readonly timeoutMs: number };

/** What the runner needs besides the context. */
export interface RunActivationOptions {
  readonly timeoutMs: number;
  readonly timers: Timers;
  /** Aborted by the runner, and only by it, when the attempt times out; the context's signal must be this controller's. */
  readonly controller: AbortController;
  /**
   * Monotonic processing time. When given, an attempt that returns after its deadline is timed out
   * even if the timeout timer never got to run (a synchronous handler blocks the event loop, so
   * the race is won by the late return): it commits nothing but its failure record.
   */
  readonly monotonicMs?: () => number;
}

/** The agent returned something that is neither `complete(...)` nor `suspend(...)`. */
export class InvalidOutcomeError extends TypeError {
  override readonly name = 'InvalidOutcomeError';
}

/**
 * Runs the agent once under the activation timeout (invariant 6). On timeout the attempt is
 * abandoned: its signal aborts, its context refuses further staging, and whatever it staged is
 * dropped with it. The agent runs on the caller's event loop, so a CPU-bound handler still
 * blocks until it yields; the timer cannot pre-empt it. The runner therefore also checks the
 * monotonic clock when the handler returns: an attempt that returns after its deadline is
 * `timed_out` (fail closed), whatever it produced. On replay the same rule applies to the new
 * attempt's own timing; nothing of the late attempt was staged into state.
 */
export async function runActivation(handler: AgentHandler, ctx: StagingContext, options: RunActivationOptions): Promise<ActivationResult> {
  const { controller, timeoutMs } = options;
  const startedMs = options.monotonicMs?.();
  const overran = (): boolean => startedMs !== undefined && options.monotonicMs !== undefined && options.monotonicMs() - startedMs > timeoutMs;
  let cancelTimer: (() => void) | undefined;
  // Whether the timeout aborted the attempt, kept here rather than read from `controller.signal`,
  // which Node would create just to answer (the attempt's context creates it only if it needs it).
  let aborted = false;
  const timedOut = new Promise<ActivationResult>((resolve) => {
    cancelTimer = options.timers.setTimeout(() => {
      aborted = true;
      controller.abort(new ActivationTimeout(timeoutMs));
      resolve({ kind: 'timed_out', timeoutMs });
    }, timeoutMs);
  });

  const ran = (async (): Promise<ActivationResult> => {
    try {
      const outcome: unknown = await handler(ctx);
      if (aborted || overran()) return { kind: 'timed_out', timeoutMs };
      if (!isOutcome(outcome)) {
        return { kind: 'failed', error: new InvalidOutcomeError('the agent must return complete(...) or suspend(...)'), position: ctx.position };
      }
      return outcome.kind === 'complete' ? { kind: 'completed', outcome } : { kind: 'suspended', outcome };
    } catch (thrown) {
      if (aborted || overran()) return { kind: 'timed_out', timeoutMs };
      return { kind: 'failed', error: ensureError(thrown), position: ctx.position };
    }
  })();

  try {
    return await Promise.race([ran, timedOut]);
  } finally {
    cancelTimer?.();
  }
}
