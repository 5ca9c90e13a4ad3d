/**
 * Protection of one model provider inside one activator process: a concurrency cap, request and
 * token rates per rolling minute, and a circuit breaker. A decorator over any `ModelProvider`;
 * the clock and the sleep are injected (decision record 0041), so every decision is exact in tests.
 * Importing this file has no side effects.
 */
import pLimit, { type LimitFunction } from 'p-limit';
import { ProviderError } from '#core';
import type { DecodedResponse, ModelProvider, ModelRequest, ProviderCallOptions } from '#core';
import { abortableDelay, type Delay } from './abortable-delay.js';

/** The limits of one provider (all optional; an empty object protects nothing). */
export interface ProviderLimits {
  readonly maxConcurrency?: number;
  readonly requestsPerMinute?: number;
  readonly tokensPerMinute?: number;
  readonly breaker?: { readonly failureThreshold: number; readonly openMs: number };
}

/** What a {@link ProtectedProvider} needs besides the provider and its limits. */
export interface ProtectedProviderOptions {
  readonly limits: ProviderLimits;
  /** Monotonic ms (default `performance.now`). */
  readonly nowMs?: () => number;
  /** Waits for room in a rate window; MUST reject when the signal aborts (default {@link abortableDelay}). */
  readonly sleep?: Delay;
}

/** The breaker's state, as `/metrics` shows it (`agents_provider_circuit_state`: 0 closed, 1 half-open, 2 open). */
export type CircuitState = 'closed' | 'open' | 'half_open';

/**
 * The provider's circuit is open: it failed `failureThreshold` times in a row and is given
 * `openMs` to recover. Retryable by type (a `ProviderError`) and carries `retryAfterMs`, so a held
 * key retries once the circuit may let a probe through; no request reached the provider.
 */
export class ProviderUnavailable extends ProviderError {
  override readonly name = 'ProviderUnavailable';
}

const MINUTE_MS = 60_000;

/**
 * A {@link ModelProvider} that keeps one provider within its limits:
 * - at most `maxConcurrency` calls in flight; more wait in arrival order;
 * - a call starts only while the rolling minute has started fewer than `requestsPerMinute` calls
 *   and used fewer than `tokensPerMinute` tokens (as the responses reported them); otherwise it
 *   waits, abortably, until the oldest entry leaves the minute — the activation timeout bounds it;
 * - after `breaker.failureThreshold` consecutive retryable failures (`ProviderError`, after the
 *   provider's own retries) the circuit opens: calls fail at once with {@link ProviderUnavailable}
 *   for `openMs`; then one probe call goes through (half-open) and its outcome closes or re-opens
 *   the circuit. A terminal failure (`ProviderRequestError`) says nothing about the provider's
 *   health and does not count.
 * State lives in this process only (each activator protects its own share); nothing here is
 * persisted or a decision input of an activation, so a replay is unaffected (answered calls come
 * from the replay cache and never reach this class).
 */
export class ProtectedProvider implements ModelProvider {
  readonly name: string;
  readonly #inner: ModelProvider;
  readonly #limits: ProviderLimits;
  readonly #nowMs: () => number;
  readonly #sleep: Delay;
  readonly #limit: LimitFunction | undefined;
  /** Start times of the calls of the rolling minute. */
  readonly #starts: number[] = [];
  /** (time, tokens) of the answers of the rolling minute. */
  readonly #tokens: { readonly atMs: number; readonly tokens: number }[] = [];
  #failures = 0;
  #openedAtMs: number | undefined;
  #probing = false;

  constructor(inner: ModelProvider, options: ProtectedProviderOptions) {
    this.#inner = inner;
    this.name = inner.name;
    this.#limits = options.limits;
    this.#nowMs = options.nowMs ?? (() => performance.now());
    this.#sleep = options.sleep ?? abortableDelay;
    this.#limit = options.limits.maxConcurrency === undefined ? undefined : pLimit(options.limits.maxConcurrency);
    if (inner.decode !== undefined) {
      const decode = inner.decode.bind(inner);
      this.decode = decode;
    }
  }

  decode?: (body: Uint8Array) => DecodedResponse;

  /** The breaker's state now. */
  get circuit(): CircuitState {
    if (this.#openedAtMs === undefined) return 'closed';
    return this.#nowMs() - this.#openedAtMs >= (this.#limits.breaker?.openMs ?? 0) ? 'half_open' : 'open';
  }

  /** Calls waiting for a concurrency slot. */
  get queued(): number {
    return this.#limit?.pendingCount ?? 0;
  }

  complete(request: ModelRequest, options: ProviderCallOptions): Promise<Uint8Array> {
    return this.#limit === undefined ? this.#call(request, options) : this.#limit(() => this.#call(request, options));
  }

  async #call(request: ModelRequest, options: ProviderCallOptions): Promise<Uint8Array> {
    options.signal.throwIfAborted();
    this.#admitThroughBreaker();
    await this.#waitForRoom(options.signal);
    this.#starts.push(this.#nowMs());
    let body: Uint8Array;
    try {
      body = await this.#inner.complete(request, options);
    } catch (error) {
      this.#settle(error instanceof ProviderError ? 'failure' : 'neutral');
      throw error;
    }
    this.#settle('success');
    const usage = this.decode?.(body).usage;
    if (usage !== undefined && this.#limits.tokensPerMinute !== undefined) this.#tokens.push({ atMs: this.#nowMs(), tokens: usage.totalTokens });
    return body;
  }

  #admitThroughBreaker(): void {
    const breaker = this.#limits.breaker;
    if (breaker === undefined || this.#openedAtMs === undefined) return;
    const openFor = this.#nowMs() - this.#openedAtMs;
    if (openFor < breaker.openMs) {
      throw new ProviderUnavailable(`${this.name}: circuit open after ${breaker.failureThreshold} consecutive failures; next probe in ${Math.ceil(breaker.openMs - openFor)} ms`, {
        retryAfterMs: Math.ceil(breaker.openMs - openFor),
      });
    }
    if (this.#probing) throw new ProviderUnavailable(`${this.name}: circuit half-open, a probe call is in flight`, { retryAfterMs: breaker.openMs });
    this.#probing = true;
  }

  #settle(outcome: 'success' | 'failure' | 'neutral'): void {
    const breaker = this.#limits.breaker;
    const probe = this.#probing;
    this.#probing = false;
    if (breaker === undefined || outcome === 'neutral') return;
    if (outcome === 'success') {
      this.#failures = 0;
      this.#openedAtMs = undefined;
      return;
    }
    this.#failures += 1;
    if (probe || this.#failures >= breaker.failureThreshold) this.#openedAtMs = this.#nowMs();
  }

  async #waitForRoom(signal: AbortSignal): Promise<void> {
    const { requestsPerMinute, tokensPerMinute } = this.#limits;
    if (requestsPerMinute === undefined && tokensPerMinute === undefined) return;
    for (;;) {
      const now = this.#nowMs();
      drop(this.#starts, (t) => now - t >= MINUTE_MS);
      drop(this.#tokens, (e) => now - e.atMs >= MINUTE_MS);
      let waitMs = 0;
      if (requestsPerMinute !== undefined && this.#starts.length >= requestsPerMinute) waitMs = Math.max(waitMs, (this.#starts[0] as number) + MINUTE_MS - now);
      if (tokensPerMinute !== undefined) {
        let used = this.#tokens.reduce((sum, e) => sum + e.tokens, 0);
        // Wait until enough of the oldest answers leave the minute for the sum to drop below the limit.
        for (const entry of this.#tokens) {
          if (used < tokensPerMinute) break;
          used -= entry.tokens;
          waitMs = Math.max(waitMs, entry.atMs + MINUTE_MS - now);
        }
      }
      if (waitMs <= 0) return;
      await this.#sleep(waitMs, signal);
    }
  }
}

function drop<T>(entries: T[], expired: (entry: T) => boolean): void {
  let n = 0;
  while (n < entries.length && expired(entries[n] as T)) n += 1;
  if (n > 0) entries.splice(0, n);
}
