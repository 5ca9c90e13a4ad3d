import type { AgentHandler } from '../agent/agent-definition.js';
import { isOutcome, type Complete, type Suspend } from '../agent/outcome.js';
import { ensureError } from '../errors/runtime-error.js';
import type { Timers } from '../time/clock.js';
import { ActivationTimeout } from './activation-timeout.js';
import type { FailurePosition } from './failure-position.js';
import type { AttemptAbort } from './attempt-abort.js';
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
  /** Aborted by the runner, and only by it, when the attempt times out; the context's signal and `abandoned` must be this one's. */
  readonly controller: Pick<AttemptAbort, 'abort'>;
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
export function runActivation(handler: AgentHandler, ctx: StagingContext, options: RunActivationOptions): Promise<ActivationResult> {
  const { controller, timeoutMs } = options;
  const startedMs = options.monotonicMs?.();
  const overran = (): boolean => startedMs !== undefined && options.monotonicMs !== undefined && options.monotonicMs() - startedMs > timeoutMs;
  // One promise settled by whichever comes first, the handler or the timer (not a race of two
  // promises and an async wrapper: this runs for every activation). Whether the timeout aborted
  // the attempt is kept here, so the runner needs nothing of the controller but `abort`.
  let aborted = false;
  return new Promise<ActivationResult>((resolve) => {
    let settled = false;
    const cancelTimer = options.timers.setTimeout(() => {
      if (settled) return;
      settled = true;
      aborted = true;
      controller.abort(new ActivationTimeout(timeoutMs));
      resolve({ kind: 'timed_out', timeoutMs });
    }, timeoutMs);
    const finish = (result: ActivationResult): void => {
      if (settled) return;
      settled = true;
      cancelTimer();
      resolve(result);
    };
    const returned = (outcome: unknown): void => {
      if (aborted || overran()) return finish({ kind: 'timed_out', timeoutMs });
      if (!isOutcome(outcome)) return finish({ kind: 'failed', error: new InvalidOutcomeError('the agent must return complete(...) or suspend(...)'), position: ctx.position });
      finish(outcome.kind === 'complete' ? { kind: 'completed', outcome } : { kind: 'suspended', outcome });
    };
    const threw = (thrown: unknown): void => {
      if (aborted || overran()) return finish({ kind: 'timed_out', timeoutMs });
      finish({ kind: 'failed', error: ensureError(thrown), position: ctx.position });
    };
    let running: unknown;
    try {
      running = handler(ctx);
    } catch (thrown) {
      threw(thrown);
      return;
    }
    // A handler may return its outcome directly or as a promise (any thenable).
    Promise.resolve(running).then(returned, threw);
  });
}
