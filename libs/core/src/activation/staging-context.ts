import { createHash } from 'node:crypto';
import type { ActivationContext } from '../agent/activation-context.js';
import type { OutputValue } from '../agent/outcome.js';
import type { ModelProvider, ModelRequest, ModelResponse } from '../model/model-request.js';
import type { WorkingMemory } from '../memory/working-memory.js';
import type { ReplayCache } from '../replay/replay-cache.js';
import { replayCacheKey } from '../replay/replay-cache-key.js';
import type { AttemptMemo } from './attempt-memo.js';
import type { ActivationTally, ModelCallRecord } from './activation-tally.js';
import { EventDecodeError } from './event-decode-error.js';
import { StagedEvent, type FailurePosition } from './failure-position.js';
import { outputBytes } from './output-value.js';

const utf8 = new TextDecoder();

/** What a staging context is built from. */
export interface StagingContextInit {
  readonly agent: string;
  readonly key: Uint8Array;
  readonly seq: number;
  readonly event: Uint8Array | undefined;
  readonly eventTimeMs: number;
  readonly isResume: boolean;
  readonly stepIndex: number;
  readonly memory: WorkingMemory;
  readonly cache: ReplayCache;
  readonly provider: ModelProvider;
  readonly memo: AttemptMemo;
  readonly signal: AbortSignal;
  /** Monotonic ms for model-call durations (telemetry only). */
  readonly monotonicMs: () => number;
}

/**
 * The context of one attempt. Everything it stages (memory writes, cache entries, outputs) lives
 * in this object until the runtime commits it; a failed, timed-out or abandoned attempt is simply
 * dropped, which is what makes the commit atomic (invariant 1).
 */
export class StagingContext implements ActivationContext {
  readonly agent: string;
  readonly key: Uint8Array;
  readonly seq: number;
  readonly event: Uint8Array | undefined;
  readonly eventTimeMs: number;
  readonly isResume: boolean;
  readonly memory: WorkingMemory;
  readonly signal: AbortSignal;

  private readonly cache: ReplayCache;
  private readonly provider: ModelProvider;
  private readonly memo: AttemptMemo;
  private readonly monotonicMs: () => number;
  private readonly stagedOutputs: Uint8Array[] = [];
  private readonly calls: ModelCallRecord[] = [];
  private step: number;
  private lastStaged: StagedEvent = StagedEvent.ActivationStart;

  constructor(init: StagingContextInit) {
    this.agent = init.agent;
    this.key = init.key;
    this.seq = init.seq;
    this.event = init.event;
    this.eventTimeMs = init.eventTimeMs;
    this.isResume = init.isResume;
    this.memory = init.memory;
    this.signal = init.signal;
    this.cache = init.cache;
    this.provider = init.provider;
    this.memo = init.memo;
    this.monotonicMs = init.monotonicMs;
    this.step = init.stepIndex;
  }

  get keyText(): string {
    return utf8.decode(this.key);
  }

  eventJson<T = unknown>(): T {
    const text = this.eventText();
    try {
      return JSON.parse(text) as T;
    } catch (error) {
      throw new EventDecodeError(`event is not JSON: ${(error as Error).message}`, { cause: error });
    }
  }

  eventText(): string {
    if (this.event === undefined) throw new EventDecodeError('this activation has no event (it is a resume or a timer)');
    return utf8.decode(this.event);
  }

  emit(output: OutputValue): void {
    this.assertLive();
    const bytes = outputBytes(output);
    if (bytes.length > 0) this.stagedOutputs.push(bytes);
  }

  async callModel(request: ModelRequest): Promise<ModelResponse> {
    this.assertLive();
    const step = this.step++;
    this.lastStaged = StagedEvent.LlmCall;
    const cacheKey = replayCacheKey(request, this.key, this.seq);

    const cached = this.cache.get(cacheKey);
    if (cached !== undefined) return this.respond(step, request, cached.response, true, 0);

    const remembered = this.memo.get(cacheKey);
    if (remembered !== undefined) {
      this.cache.put(cacheKey, remembered);
      return this.respond(step, request, remembered, true, 0);
    }

    const started = this.monotonicMs();
    const body = await this.provider.complete(request, { signal: this.signal });
    const durationMs = Math.max(0, this.monotonicMs() - started);
    this.assertLive();
    this.memo.set(cacheKey, body);
    this.cache.put(cacheKey, body);
    return this.respond(step, request, body, false, durationMs);
  }

  /** The outputs staged by `emit`, in order. */
  get outputs(): readonly Uint8Array[] {
    return this.stagedOutputs;
  }

  /** The step cursor after this attempt (persisted in a continuation). */
  get stepIndex(): number {
    return this.step;
  }

  /** Where the attempt stands, for failure records. */
  get position(): FailurePosition {
    return { step: this.step, after: this.lastStaged };
  }

  /** The replay cache with this attempt's staged entries. */
  get replayCache(): ReplayCache {
    return this.cache;
  }

  get tally(): ActivationTally {
    let providerCalls = 0;
    let cacheHits = 0;
    let providerMs = 0;
    for (const call of this.calls) {
      if (call.cacheHit) cacheHits += 1;
      else providerCalls += 1;
      providerMs += call.durationMs;
    }
    return { modelCalls: this.calls, providerCalls, cacheHits, providerMs };
  }

  private respond(step: number, request: ModelRequest, body: Uint8Array, cacheHit: boolean, durationMs: number): ModelResponse {
    const decoded = this.provider.decode?.(body);
    const usage = decoded?.usage;
    this.calls.push({
      step,
      model: request.model,
      cacheHit,
      durationMs,
      ...(usage ? { promptTokens: usage.promptTokens, completionTokens: usage.completionTokens } : {}),
    });
    return {
      body,
      text: decoded?.text ?? utf8.decode(body),
      ...(usage ? { usage } : {}),
      digest: createHash('sha256').update(body).digest('hex'),
    };
  }

  /** An abandoned (timed-out) attempt may keep running; it must not stage or call anything more. */
  private assertLive(): void {
    if (this.signal.aborted) throw this.signal.reason instanceof Error ? this.signal.reason : new Error('activation aborted');
  }
}
