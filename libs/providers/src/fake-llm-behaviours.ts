/**
 * What a matched {@link FakeLlm} rule does: respond with bytes, respond with a chat completion,
 * raise an error, or fail N times and then succeed. Behaviours never read a clock: latency is
 * requested through the context's `delay`, which the FakeLlm routes to its injected hook.
 */
import type { ModelRequest, TokenUsage } from '#core';
import { chatCompletionJson } from './chat-completion-json.js';

/** A scripted response body: raw bytes, or a string sent as UTF-8. */
export type FakeBody = Uint8Array | string;

/** What a behaviour gets from the FakeLlm for one call. */
export interface FakeLlmBehaviourContext {
  /** The caller's signal; the FakeLlm rejects with its reason when it aborts. */
  readonly signal: AbortSignal;
  /** Waits `ms` through the FakeLlm's injected delay hook (no-op for `ms <= 0`); rejects on abort. */
  delay(ms: number): Promise<void>;
}

/** The action of a `FakeLlm` rule. */
export interface FakeLlmBehaviour {
  /** Human-readable form for diagnostics. */
  readonly description: string;
  /** Produces the response body for `request`, or rejects with the scripted error. */
  respond(request: ModelRequest, context: FakeLlmBehaviourContext): Promise<Uint8Array>;
}

/** Options shared by behaviours. */
export interface LatencyOptions {
  /** Simulated latency, awaited through the FakeLlm's delay hook before answering (default 0: none). */
  readonly latencyMs?: number;
}

/** Options of {@link respondWithChat}. */
export interface RespondWithChatOptions extends LatencyOptions {
  /** Reported as the body's `usage`; omitted from the body when absent. */
  readonly usage?: TokenUsage;
}

/** Options of {@link failThenSucceed}. */
export interface FailThenSucceedOptions extends LatencyOptions {
  /** What the failing calls throw (a fresh error per call when given a function). */
  readonly error: Error | ((request: ModelRequest) => Error);
  /** How many calls routed to this rule fail before it succeeds (≥ 0). */
  readonly times: number;
  /** What every later call does: a behaviour, or a body for {@link respondWith}. */
  readonly then: FakeLlmBehaviour | FakeBody;
}

const utf8 = new TextEncoder();

/**
 * Responds with `body` (or the body `body(request)` computes) after `latencyMs`. Every call gets
 * a fresh copy of the bytes, so a caller mutating one response cannot change the next.
 */
export function respondWith(
  body: FakeBody | ((request: ModelRequest) => FakeBody),
  options: LatencyOptions = {},
): FakeLlmBehaviour {
  const latencyMs = options.latencyMs ?? 0;
  return {
    description: 'respondWith(…)',
    async respond(request, context) {
      await context.delay(latencyMs);
      return toBytes(typeof body === 'function' ? body(request) : body);
    },
  };
}

/**
 * Responds with an OpenAI chat-completions body whose assistant content is `text` (or
 * `text(request)`) and whose `model` echoes the request's, so `decode` of the FakeLlm and of the
 * OpenAI-compatible provider both return exactly that text (and `usage`, when given).
 *
 * @example
 * ```ts
 * fake.on(matchModel('planner'), respondWithChat('step 1', { usage: { promptTokens: 3, completionTokens: 2, totalTokens: 5 } }));
 * ```
 */
export function respondWithChat(
  text: string | ((request: ModelRequest) => string),
  options: RespondWithChatOptions = {},
): FakeLlmBehaviour {
  const { usage } = options;
  return {
    ...respondWith(
      (request) => chatCompletionJson({ text: typeof text === 'function' ? text(request) : text, model: request.model, ...(usage ? { usage } : {}) }),
      options,
    ),
    description: typeof text === 'function' ? 'respondWithChat(<function>)' : `respondWithChat(${JSON.stringify(text)})`,
  };
}

/**
 * Rejects with `error` (or `error(request)`) after `latencyMs`. Use a `ProviderError` subclass to
 * exercise retry paths and a `ProviderRequestError` for terminal ones. Given an instance, every
 * call throws that same instance.
 */
export function raiseError(error: Error | ((request: ModelRequest) => Error), options: LatencyOptions = {}): FakeLlmBehaviour {
  const latencyMs = options.latencyMs ?? 0;
  return {
    description: `raiseError(${typeof error === 'function' ? '<function>' : error.name})`,
    async respond(request, context) {
      await context.delay(latencyMs);
      throw typeof error === 'function' ? error(request) : error;
    },
  };
}

/**
 * The first `times` calls routed to this rule reject with `error` (after `latencyMs`); every
 * later call does `then`. The count is per behaviour instance and advances when a call
 * arrives, before any latency, so it follows call order deterministically.
 *
 * @example
 * ```ts
 * fake.on(matchAny(), failThenSucceed({ error: new RateLimitError('slow down'), times: 2, then: respondWithChat('ok') }));
 * ```
 */
export function failThenSucceed(options: FailThenSucceedOptions): FakeLlmBehaviour {
  const { times } = options;
  if (!Number.isSafeInteger(times) || times < 0) throw new RangeError(`failThenSucceed times must be an integer >= 0, got ${times}`);
  const failure = raiseError(options.error, options);
  const success = typeof options.then === 'string' || options.then instanceof Uint8Array ? respondWith(options.then) : options.then;
  let calls = 0;
  return {
    description: `failThenSucceed(${failure.description} ×${times}, then ${success.description})`,
    respond(request, context) {
      calls += 1;
      return calls <= times ? failure.respond(request, context) : success.respond(request, context);
    },
  };
}

function toBytes(body: FakeBody): Uint8Array {
  return typeof body === 'string' ? utf8.encode(body) : new Uint8Array(body);
}
