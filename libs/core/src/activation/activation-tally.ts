/** One model call as the activation saw it (for traces and metrics; never persisted). */
export interface ModelCallRecord {
  readonly step: number;
  readonly model: string;
  readonly cacheHit: boolean;
  /** Provider wall time in ms (0 on a hit), from the injected monotonic clock. */
  readonly durationMs: number;
  readonly promptTokens?: number;
  readonly completionTokens?: number;
}

/**
 * Per-attempt counters. Telemetry, not a ledger: a retried attempt counts again, and nothing
 * here is a decision input or reaches the state document.
 */
export interface ActivationTally {
  readonly modelCalls: readonly ModelCallRecord[];
  readonly providerCalls: number;
  readonly cacheHits: number;
  readonly providerMs: number;
  /** Inline read-only tool calls. */
  readonly toolCalls: number;
  /** Intents (tool and approval) staged. */
  readonly intents: number;
}
