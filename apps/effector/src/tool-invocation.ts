/**
 * Runs a validated tool call: one deadline over every attempt (the tool's `timeoutMs`, else the
 * effector's), retries of the tool's own `RetryableError` with backoff up to its `retries`, and
 * the mapping of what happened to a verdict. Time, timers and randomness are injected.
 *
 * On a timeout the verdict is `ERROR` "timed out, effect unknown" and nothing is retried: the
 * tool may have acted. When the effector halts mid-run the answer is `halted`, not a verdict:
 * the caller leaves the claim to expire, and the intent runs again elsewhere after the lease.
 */
import {
  AttemptAbort,
  canonicalJson,
  backoffDelay,
  ensureError,
  RetryableError,
  sleep,
  ToolResultStatus,
  type AnyToolDefinition,
  type IntentInfo,
  type ToolCallContext,
  type Timers,
  type ToolIntentDoc,
} from '#core';
import { EffectorHalted, ToolTimedOut } from './effector-errors.js';
import { DEFAULT_TOOL_RETRIES, EffectorBackoff } from './retry-policy.js';
import { failedVerdict, type ToolVerdict } from './tool-verdict.js';

/** What an invocation needs besides the call. */
export interface ToolInvocationDeps {
  readonly timers: Timers;
  readonly random: () => number;
  readonly monotonicMs: () => number;
  /** `effector.toolTimeoutMs`, for tools without their own `timeoutMs`. */
  readonly defaultTimeoutMs: number;
  /** `ToolCallContext.secret`. */
  readonly secret: (reference: string) => string;
}

/** How an invocation ended. */
export type InvocationResult =
  /** The tool answered, failed for good, or timed out: a verdict to record. */
  | { readonly kind: 'finished'; readonly verdict: ToolVerdict; readonly attempts: number; readonly durationMs: number }
  /** The effector halted mid-run: no verdict; leave the claim to expire. */
  | { readonly kind: 'halted'; readonly durationMs: number };

/** The identity a tool receives (`ToolCallContext.intent`); identical on every re-execution. */
export function intentInfo(intent: ToolIntentDoc): IntentInfo {
  return { intentId: intent.intentId, agent: intent.agent, entityKey: new Uint8Array(intent.entityKey), seq: intent.seq, stepIndex: intent.stepIndex };
}

/** Invokes `tool` with `args` for `intent`; `halted` aborts it when the effector's drain window ends. */
export async function invokeTool(
  tool: AnyToolDefinition,
  args: unknown,
  intent: ToolIntentDoc,
  halted: AbortSignal,
  deps: ToolInvocationDeps,
): Promise<InvocationResult> {
  const timeoutMs = tool.timeoutMs ?? deps.defaultTimeoutMs;
  const retries = tool.retries ?? DEFAULT_TOOL_RETRIES;
  // The invocation's signal is created only if the tool reads `context.signal`: on Node 20 each
  // signal costs about 4 µs and three maps of its own (decision 0093), and most tools never look.
  const abort = new AttemptAbort();
  const cancelTimeout = deps.timers.setTimeout(() => abort.abort(new ToolTimedOut(tool.name, timeoutMs)), timeoutMs);
  const onHalt = (): void => abort.abort(new EffectorHalted(`the effector halted while tool '${tool.name}' ran`));
  if (halted.aborted) onHalt();
  else halted.addEventListener('abort', onHalt, { once: true });
  const startedAt = deps.monotonicMs();
  const context: ToolCallContext = {
    get signal(): AbortSignal {
      return abort.signal;
    },
    intent: intentInfo(intent),
    secret: deps.secret,
  };
  const finished = (verdict: ToolVerdict, attempts: number): InvocationResult => ({ kind: 'finished', verdict, attempts, durationMs: deps.monotonicMs() - startedAt });
  const interrupted = (attempts: number): InvocationResult => {
    const reason = abort.reason;
    if (reason instanceof ToolTimedOut) return finished(failedVerdict(ToolResultStatus.Error, reason), attempts);
    return { kind: 'halted', durationMs: deps.monotonicMs() - startedAt };
  };
  try {
    for (let attempt = 0; ; attempt += 1) {
      if (abort.abandoned) return interrupted(attempt);
      let value: unknown;
      try {
        value = await untilAborted(
          Promise.resolve().then(() => tool.handler(args, context)),
          abort,
        );
      } catch (thrown) {
        if (abort.abandoned) return interrupted(attempt + 1);
        const error = ensureError(thrown);
        if (error instanceof RetryableError && attempt < retries) {
          await sleep(deps.timers, backoffDelay(EffectorBackoff.toolRetry, attempt, deps.random, error.retryAfterMs ?? 0), abort.signal);
          continue;
        }
        return finished(failedVerdict(ToolResultStatus.Error, error), attempt + 1);
      }
      return finished(okVerdict(tool.name, value), attempt + 1);
    }
  } finally {
    cancelTimeout();
    halted.removeEventListener('abort', onHalt);
  }
}

const utf8 = new TextEncoder();

/** OK with the canonical JSON of `value` (`undefined` → `null`); ERROR when JSON cannot carry it. */
function okVerdict(tool: string, value: unknown): ToolVerdict {
  try {
    return { status: ToolResultStatus.Ok, payload: utf8.encode(canonicalJson(value === undefined ? null : value)), errorMessage: '' };
  } catch (error) {
    const cause = ensureError(error);
    return failedVerdict(ToolResultStatus.Error, { name: cause.name, message: `tool '${tool}' returned a value JSON cannot carry: ${cause.message}` });
  }
}

/** Settles with `work`, or rejects with the abort's reason once the invocation is abandoned (the work is left running). */
function untilAborted<T>(work: Promise<T>, abort: AttemptAbort): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const stopListening = abort.onAbort(reject);
    work.then(
      (value) => {
        stopListening();
        resolve(value);
      },
      (error: unknown) => {
        stopListening();
        reject(error as Error);
      },
    );
  });
}
