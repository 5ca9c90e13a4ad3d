/**
 * The OpenAI-compatible chat-completions transport: one non-streaming `POST
 * <baseUrl>/chat/completions` per attempt over the global `fetch`, with its own bounded retry of
 * retryable failures. It owns no cache: the runtime stores the raw bytes this returns, verbatim,
 * in the replay cache, so a replayed activation never reaches this class. Importing this file
 * has no side effects.
 */
import pRetry from 'p-retry';
import {
  ProviderError,
  ProviderRequestError,
  ProviderTimeout,
  RateLimitError,
  ServerError,
} from '#core';
import type { BackoffPolicy, DecodedResponse, JsonValue, ModelProvider, ModelRequest, ProviderCallOptions } from '#core';
import { abortableDelay } from './abortable-delay.js';
import type { Delay } from './abortable-delay.js';
import { ProviderConfigError } from './errors.js';
import { fullJitterBackoffMs } from './full-jitter-backoff.js';
import { decodeOpenAiCompatible } from './openai-compatible-decode.js';
import { parseRetryAfterMs } from './retry-after.js';
import type { Secret } from './secret.js';

/** Defaults of {@link OpenAiCompatibleProviderOptions}. */
export const OPENAI_COMPATIBLE_DEFAULTS = {
  /** Per-attempt timeout, covering the request and reading the whole response body. */
  timeoutMs: 60_000,
  /** Attempts per `complete` call, the first included. */
  maxAttempts: 4,
  /** Full-jitter exponential backoff between attempts. */
  backoff: { baseMs: 500, maxMs: 8_000 },
} as const satisfies { timeoutMs: number; maxAttempts: number; backoff: BackoffPolicy };

/** Configuration of an {@link OpenAiCompatibleProvider}. */
export interface OpenAiCompatibleProviderOptions {
  /** API root, e.g. `https://api.openai.com/v1` or `http://vllm:8000/v1`; `/chat/completions` is appended. */
  readonly baseUrl: string;
  /** Sent as `Authorization: Bearer <key>`; absent means no `Authorization` header at all. */
  readonly apiKey?: Secret;
  /** Per-attempt timeout in ms (default 60 000). */
  readonly timeoutMs?: number;
  /** Attempts per call, the first included (default 4); `1` disables retries. */
  readonly maxAttempts?: number;
  /** Backoff bounds (default `{ baseMs: 500, maxMs: 8000 }`). */
  readonly backoff?: Partial<BackoffPolicy>;
  /** Uniform `[0, 1)` source for jitter (default `Math.random`); inject it to make delays exact in tests. */
  readonly random?: () => number;
  /** How to wait between attempts (default {@link abortableDelay}); MUST reject when the signal aborts. */
  readonly sleep?: Delay;
  /** Epoch ms, only to resolve a `Retry-After` HTTP-date (default `Date.now`). */
  readonly now?: () => number;
}

/** Request fields the protocol owns; `request.params` cannot override them. */
const RESERVED_PARAMS: ReadonlySet<string> = new Set(['model', 'messages', 'tools', 'stream']);

const SNIPPET_CHARS = 300;
const lenientUtf8 = new TextDecoder('utf-8');

/**
 * A {@link ModelProvider} for any OpenAI-compatible chat-completions endpoint (OpenAI, vLLM,
 * LiteLLM, Ollama, gateways).
 *
 * What the caller can rely on:
 * - `complete` returns the response body bytes VERBATIM (after checking they decode), so the
 *   replay cache stores exactly what the endpoint sent and {@link decode} reads it back.
 * - The request body is `{ model, messages, tools?, ...params }` (params cannot override
 *   `model`, `messages`, `tools`, or turn on `stream`); `Authorization: Bearer <key>` is sent
 *   only when a key is configured.
 * - Retryable failures are retried inside `complete`, up to `maxAttempts` attempts with full
 *   jitter backoff floored by `Retry-After`; only `ProviderError` subclasses are retried and
 *   there is no wait after the last attempt. What escapes:
 *   - `RateLimitError` (429, `retryAfterMs` from `Retry-After`), `ServerError` (5xx, `status`),
 *     `ProviderTimeout` (no full response within `timeoutMs`), or a plain `ProviderError`
 *     (connection refused/reset): retryable failures that exhausted their attempts;
 *   - `ProviderRequestError` (any other non-2xx, or a 2xx body that is not a chat completion):
 *     thrown on the first occurrence, NEVER retried;
 *   - the caller's `signal.reason`, promptly, when the caller aborts (during a request or a
 *     backoff wait); nothing further is sent.
 * - The API key NEVER appears in error messages (response snippets are scrubbed of it), nor in
 *   `JSON.stringify`/`util.inspect` of this object or of its options.
 *
 * @example
 * ```ts
 * const provider = new OpenAiCompatibleProvider({
 *   baseUrl: 'https://api.openai.com/v1',
 *   apiKey: loadApiKey({ apiKeyEnv: 'OPENAI_API_KEY' }, process.env),
 * });
 * const body = await provider.complete({ model: 'gpt-4o-mini', messages }, { signal });
 * const { text, usage } = provider.decode(body);
 * ```
 */
export class OpenAiCompatibleProvider implements ModelProvider {
  readonly name = 'openai-compatible';
  /** The URL every attempt POSTs to. */
  readonly endpoint: string;

  readonly #apiKey: Secret | undefined;
  readonly #timeoutMs: number;
  readonly #maxAttempts: number;
  readonly #backoff: BackoffPolicy;
  readonly #random: () => number;
  readonly #sleep: Delay;
  readonly #now: () => number;

  /** @throws {@link ProviderConfigError} for a malformed `baseUrl` or out-of-range numbers. */
  constructor(options: OpenAiCompatibleProviderOptions) {
    this.endpoint = chatCompletionsUrl(options.baseUrl);
    this.#apiKey = options.apiKey;
    this.#timeoutMs = positive('timeoutMs', options.timeoutMs ?? OPENAI_COMPATIBLE_DEFAULTS.timeoutMs);
    this.#maxAttempts = options.maxAttempts ?? OPENAI_COMPATIBLE_DEFAULTS.maxAttempts;
    if (!Number.isSafeInteger(this.#maxAttempts) || this.#maxAttempts < 1) {
      throw new ProviderConfigError(`maxAttempts must be an integer >= 1, got ${String(options.maxAttempts)}`);
    }
    this.#backoff = {
      baseMs: nonNegative('backoff.baseMs', options.backoff?.baseMs ?? OPENAI_COMPATIBLE_DEFAULTS.backoff.baseMs),
      maxMs: nonNegative('backoff.maxMs', options.backoff?.maxMs ?? OPENAI_COMPATIBLE_DEFAULTS.backoff.maxMs),
    };
    this.#random = options.random ?? Math.random;
    this.#sleep = options.sleep ?? abortableDelay;
    this.#now = options.now ?? Date.now;
  }

  /**
   * Sends `request` and returns the raw response body, verbatim. See the class doc for the
   * retry policy and exactly what is thrown.
   */
  async complete(request: ModelRequest, options: ProviderCallOptions): Promise<Uint8Array> {
    const { signal } = options;
    signal.throwIfAborted();
    const body = JSON.stringify(requestBody(request));
    try {
      return await pRetry(() => this.#attempt(body, signal), {
        retries: this.#maxAttempts - 1,
        // p-retry's own delay stays 0: we wait in shouldRetry, which runs only when another
        // attempt follows, to get full jitter, a Retry-After floor and an injectable sleep.
        minTimeout: 0,
        signal,
        shouldRetry: async ({ error, attemptNumber }) => {
          if (!(error instanceof ProviderError)) return false;
          await this.#sleep(fullJitterBackoffMs(attemptNumber, this.#backoff, this.#random, error.retryAfterMs), signal);
          return true;
        },
      });
    } catch (error) {
      // Whatever surfaced (fetch's AbortError, p-retry's wrapper), the caller gets its own reason.
      if (signal.aborted) throw signal.reason;
      throw error;
    }
  }

  /** {@link decodeOpenAiCompatible}: pure, identical on fresh and cached bytes. */
  decode(body: Uint8Array): DecodedResponse {
    return decodeOpenAiCompatible(body);
  }

  async #attempt(body: string, callerSignal: AbortSignal): Promise<Uint8Array> {
    const timeout = new AbortController();
    const timer = setTimeout(() => timeout.abort(), this.#timeoutMs);
    const signal = AbortSignal.any([callerSignal, timeout.signal]);
    try {
      let response: Response;
      try {
        response = await fetch(this.endpoint, { method: 'POST', headers: this.#headers(), body, signal, redirect: 'manual' });
      } catch (error) {
        throw this.#transportFailure(error, callerSignal, timeout.signal);
      }
      let bytes: Uint8Array;
      try {
        bytes = new Uint8Array(await response.arrayBuffer());
      } catch (error) {
        throw this.#transportFailure(error, callerSignal, timeout.signal);
      }
      return this.#accept(response, bytes);
    } finally {
      clearTimeout(timer);
    }
  }

  #headers(): Record<string, string> {
    const headers: Record<string, string> = { 'content-type': 'application/json', accept: 'application/json' };
    if (this.#apiKey !== undefined) headers['authorization'] = `Bearer ${this.#apiKey.reveal()}`;
    return headers;
  }

  #transportFailure(error: unknown, callerSignal: AbortSignal, timeoutSignal: AbortSignal): unknown {
    if (callerSignal.aborted) return callerSignal.reason;
    if (timeoutSignal.aborted) {
      return new ProviderTimeout(`${this.endpoint} did not respond within ${this.#timeoutMs} ms`, { cause: error });
    }
    return new ProviderError(`request to ${this.endpoint} failed: ${this.#scrub(describeCause(error))}`, { cause: error });
  }

  #accept(response: Response, bytes: Uint8Array): Uint8Array {
    const { status } = response;
    if (status >= 200 && status < 300) {
      try {
        decodeOpenAiCompatible(bytes);
      } catch (error) {
        const reason = error instanceof Error ? error.message : String(error);
        throw new ProviderRequestError(status, `${this.endpoint} answered ${status} with ${this.#scrub(reason)}`, { cause: error });
      }
      return bytes;
    }
    const detail = `${this.endpoint} answered ${status}${this.#snippet(bytes)}`;
    if (status === 429) {
      const retryAfterMs = parseRetryAfterMs(response.headers.get('retry-after'), this.#now());
      throw new RateLimitError(`rate limited: ${detail}`, { retryAfterMs });
    }
    if (status >= 500) throw new ServerError(status, `server error: ${detail}`);
    throw new ProviderRequestError(status, `request rejected: ${detail}`);
  }

  /** A short, whitespace-collapsed, key-free excerpt of an error body for the message. */
  #snippet(bytes: Uint8Array): string {
    const text = this.#scrub(lenientUtf8.decode(bytes)).replace(/\s+/g, ' ').trim();
    if (text === '') return '';
    return `: ${text.length > SNIPPET_CHARS ? `${text.slice(0, SNIPPET_CHARS)}…` : text}`;
  }

  /** Removes the API key from text that came from the network (some servers echo it back). */
  #scrub(text: string): string {
    const key = this.#apiKey?.reveal();
    return key === undefined || key === '' ? text : text.replaceAll(key, '[redacted]');
  }
}

function requestBody(request: ModelRequest): { [name: string]: JsonValue } {
  const body: { [name: string]: JsonValue } = { model: request.model, messages: request.messages };
  if (request.tools !== undefined) body['tools'] = request.tools;
  for (const [name, value] of Object.entries(request.params ?? {})) {
    if (!RESERVED_PARAMS.has(name)) body[name] = value;
  }
  return body;
}

function chatCompletionsUrl(baseUrl: string): string {
  let url: URL;
  try {
    url = new URL(baseUrl);
  } catch (error) {
    throw new ProviderConfigError(`baseUrl is not a URL: ${JSON.stringify(baseUrl)}`, { cause: error });
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new ProviderConfigError(`baseUrl must be http or https, got ${url.protocol}`);
  }
  if (url.username !== '' || url.password !== '') {
    throw new ProviderConfigError('baseUrl must not carry credentials; configure apiKeyEnv or apiKeyFile instead');
  }
  return `${baseUrl.trim().replace(/\/+$/, '')}/chat/completions`;
}

function positive(name: string, value: number): number {
  if (!Number.isFinite(value) || value <= 0) throw new ProviderConfigError(`${name} must be a positive number, got ${value}`);
  return value;
}

function nonNegative(name: string, value: number): number {
  if (!Number.isFinite(value) || value < 0) throw new ProviderConfigError(`${name} must be a non-negative number, got ${value}`);
  return value;
}

function describeCause(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const cause: unknown = error.cause;
  const code = typeof cause === 'object' && cause !== null && 'code' in cause ? String(cause.code) : undefined;
  return code === undefined ? error.message : `${error.message} (${code})`;
}
