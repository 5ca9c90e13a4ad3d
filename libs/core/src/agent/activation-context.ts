import type { ModelRequest, ModelResponse } from '../model/model-request.js';
import type { OutputValue } from './outcome.js';
import type { WorkingMemoryApi } from './working-memory-api.js';

/**
 * Everything an activation may see and do. Built fresh for every attempt; nothing it stages
 * reaches the world unless the attempt commits (invariant 1).
 *
 * On retry or replay of the same element the context is rebuilt from the same committed state,
 * so an agent that only uses what is here (no wall clock, no randomness of its own) walks the
 * same path and stages byte-identical effects.
 */
export interface ActivationContext {
  /** The agent's name. */
  readonly agent: string;
  /** The entity key, verbatim bytes. */
  readonly key: Uint8Array;
  /** The entity key decoded as UTF-8 (lossy for binary keys). */
  readonly keyText: string;
  /** The activation's seq: committed attempts on this key before it (a resume keeps its start's seq). */
  readonly seq: number;
  /** The triggering event's bytes; undefined on resumes and timer routes. */
  readonly event: Uint8Array | undefined;
  /** The event parsed as JSON. Throws `EventDecodeError` when it is not JSON (the activation then fails closed). */
  eventJson<T = unknown>(): T;
  /** The event decoded as UTF-8 text. */
  eventText(): string;
  /** The activation clock: the element's event time in epoch ms. Never the wall clock. */
  readonly eventTimeMs: number;
  /** True when this attempt resumes a suspension (a tool result or approval arrived). */
  readonly isResume: boolean;
  /** The key's working memory (staged). */
  readonly memory: WorkingMemoryApi;
  /**
   * Calls the model through the replay cache (invariant 3): a request already answered in this
   * (key, seq) scope is served from the committed cache with zero provider calls, so a retried
   * or replayed activation never pays twice. Each call advances the step index.
   */
  callModel(request: ModelRequest): Promise<ModelResponse>;
  /** Stages an extra output, published in order before the completion output on commit. */
  emit(output: OutputValue): void;
  /** Aborted when the activation times out; pass it to anything cancellable. */
  readonly signal: AbortSignal;
}
