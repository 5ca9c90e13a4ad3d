// Provider protection decides with an injected clock and sleep, so its caps, rate windows and breaker transitions are pinned exactly, without waiting.
import { describe, expect, it } from 'vitest';
import { ProviderError, ProviderRequestError, ServerError, type ModelProvider, type ModelRequest } from '#core';
import { chatCompletionJson } from './chat-completion-json.js';
import { decodeOpenAiCompatible } from './openai-compatible-decode.js';
import { ProtectedProvider, ProviderUnavailable, type ProviderLimits } from './protected-provider.js';

const request: ModelRequest = { model: 'm', messages: [] };
const live = (): { signal: AbortSignal } => ({ signal: new AbortController().signal });

/** A provider whose answers the test scripts: `ok` with a token count, or a thrown error. */
class Scripted implements ModelProvider {
  readonly name = 'scripted';
  calls = 0;
  inFlight = 0;
  maxInFlight = 0;
  readonly gates: (() => void)[] = [];
  constructor(private readonly answer: (call: number) => number | Error | 'hold') {}
  async complete(): Promise<Uint8Array> {
    const call = this.calls++;
    this.inFlight += 1;
    this.maxInFlight = Math.max(this.maxInFlight, this.inFlight);
    try {
      let outcome = this.answer(call);
      if (outcome === 'hold') {
        await new Promise<void>((resolve) => this.gates.push(resolve));
        outcome = 10;
      }
      if (outcome instanceof Error) throw outcome;
      return new TextEncoder().encode(chatCompletionJson({ text: 'ok', model: 'm', usage: { promptTokens: outcome, completionTokens: 0, totalTokens: outcome } }));
    } finally {
      this.inFlight -= 1;
    }
  }
  decode(body: Uint8Array) {
    return decodeOpenAiCompatible(body);
  }
}

function harness(inner: ModelProvider, limits: ProviderLimits) {
  let now = 0;
  const sleeps: number[] = [];
  const provider = new ProtectedProvider(inner, {
    limits,
    nowMs: () => now,
    sleep: async (ms) => {
      sleeps.push(ms);
      now += ms;
    },
  });
  return { provider, sleeps, advance: (ms: number) => (now += ms) };
}

describe('ProtectedProvider', () => {
  it('keeps at most maxConcurrency calls in flight; the others wait their turn', async () => {
    const inner = new Scripted(() => 'hold');
    const { provider } = harness(inner, { maxConcurrency: 2 });
    const calls = [1, 2, 3, 4].map(() => provider.complete(request, live()));
    await new Promise((r) => setImmediate(r));
    expect(inner.inFlight).toBe(2);
    expect(provider.queued).toBe(2);
    while (inner.gates.length > 0 || inner.calls < 4) {
      inner.gates.shift()?.();
      await new Promise((r) => setImmediate(r));
    }
    await Promise.all(calls);
    expect(inner.maxInFlight).toBe(2);
  });

  it('waits for the rolling minute to have room before the next request (requests per minute)', async () => {
    const { provider, sleeps, advance } = harness(new Scripted(() => 1), { requestsPerMinute: 2 });
    await provider.complete(request, live());
    advance(10_000);
    await provider.complete(request, live());
    await provider.complete(request, live());
    // The third call starts when the first leaves the minute: 60 s after it, 50 s after the second.
    expect(sleeps).toEqual([50_000]);
  });

  it('waits while the minute has used its tokens (tokens per minute, as responses report them)', async () => {
    const { provider, sleeps, advance } = harness(new Scripted((call) => (call === 0 ? 700 : 400)), { tokensPerMinute: 1_000 });
    await provider.complete(request, live());
    advance(5_000);
    await provider.complete(request, live()); // 1 100 tokens used in this minute now
    advance(5_000);
    await provider.complete(request, live());
    // Room again once the 700-token answer leaves the minute: 60 s after it, 50 s from now.
    expect(sleeps).toEqual([50_000]);
  });

  it('opens after consecutive retryable failures, fails fast while open, probes after openMs, and closes on success', async () => {
    const inner = new Scripted((call) => (call < 3 ? new ServerError(503, 'down') : 5));
    const { provider, advance } = harness(inner, { breaker: { failureThreshold: 3, openMs: 30_000 } });
    for (let i = 0; i < 3; i += 1) await expect(provider.complete(request, live())).rejects.toBeInstanceOf(ServerError);
    expect(provider.circuit).toBe('open');
    const fast = await provider.complete(request, live()).catch((e: unknown) => e);
    expect(fast).toBeInstanceOf(ProviderUnavailable);
    expect(fast).toBeInstanceOf(ProviderError);
    expect((fast as ProviderUnavailable).retryAfterMs).toBe(30_000);
    expect(inner.calls).toBe(3);
    advance(30_000);
    expect(provider.circuit).toBe('half_open');
    await provider.complete(request, live());
    expect(provider.circuit).toBe('closed');
    expect(inner.calls).toBe(4);
  });

  it('re-opens when the half-open probe fails, and ignores terminal failures, which say nothing about health', async () => {
    const inner = new Scripted((call) => (call === 0 ? new ServerError(503, 'down') : call === 1 ? new ServerError(503, 'still down') : new ProviderRequestError(400, 'bad')));
    const { provider, advance } = harness(inner, { breaker: { failureThreshold: 1, openMs: 1_000 } });
    await expect(provider.complete(request, live())).rejects.toBeInstanceOf(ServerError);
    advance(1_000);
    await expect(provider.complete(request, live())).rejects.toBeInstanceOf(ServerError);
    expect(provider.circuit).toBe('open');
    advance(1_000);
    // A terminal answer to the probe neither closes nor re-opens: the next call probes again.
    await expect(provider.complete(request, live())).rejects.toBeInstanceOf(ProviderRequestError);
    expect(provider.circuit).toBe('half_open');
    await expect(provider.complete(request, live())).rejects.toBeInstanceOf(ProviderRequestError);
    expect(inner.calls).toBe(4);
  });
});
