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
}

/** The agent returned something that is neither `complete(...)` nor `suspend(...)`. */
export class InvalidOutcomeError extends TypeError {
  override readonly name = 'InvalidOutcomeError';
}

/**
 * Runs the agent once under the activation timeout (invariant 6). On timeout the attempt is
 * abandoned: its signal aborts, its context refuses further staging, and whatever it staged is
 * dropped with it. The agent runs on the caller's event loop, so a CPU-bound handler still
 * blocks until it yields; the timeout bounds async work only.
 */
export async function runActivation(handler: AgentHandler, ctx: StagingContext, options: RunActivationOptions): Promise<ActivationResult> {
  const { controller, timeoutMs } = options;
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
      if (aborted) return { kind: 'timed_out', timeoutMs };
      if (!isOutcome(outcome)) {
        return { kind: 'failed', error: new InvalidOutcomeError('the agent must return complete(...) or suspend(...)'), position: ctx.position };
      }
      return outcome.kind === 'complete' ? { kind: 'completed', outcome } : { kind: 'suspended', outcome };
    } catch (thrown) {
      if (aborted) return { kind: 'timed_out', timeoutMs };
      return { kind: 'failed', error: ensureError(thrown), position: ctx.position };
    }
  })();

  try {
    return await Promise.race([ran, timedOut]);
  } finally {
    cancelTimer?.();
  }
}
