import { SpanKind } from '@opentelemetry/api';
import type { ActivationReport, ActorRuntimeObserver, ErrorReason, ModelCallRecord } from '#core';
import { AgentsAttribute, GenAiAttribute, type TraceScopes } from '#telemetry';
import { activatorTracer } from './activator-tracer.js';

/** Epoch milliseconds with sub-millisecond precision (span timestamps). */
const nowMs = (): number => performance.timeOrigin + performance.now();

/**
 * Decorates the runtime's observer (metrics and logs) with what traces need. Every hook forwards
 * to the inner observer first — inside the activation's trace scope when it records, so the lines
 * the inner observer logs carry `agent`, `key`, `trace_id` and `span_id` — then annotates the
 * activation span, found by the hook's state key in the runtime's {@link TraceScopes} (never in an
 * async context, decision 0076):
 * - each model call becomes a `chat <model>` child span (OpenTelemetry GenAI conventions: system
 *   and provider, request model, token usage when the provider reports it) marked with whether
 *   the replay cache answered it; its start is back-dated by the provider time the core measured;
 * - a retry in place, a conflict, fencing and the soft cap become span events, and the span's
 *   `agents.attempts` / `agents.retried` say the element did not land on the first attempt.
 * Never throws and never changes what the runtime decides.
 */
export class TracingObserver implements ActorRuntimeObserver {
  constructor(
    private readonly inner: ActorRuntimeObserver | undefined,
    private readonly providerName: string,
    private readonly scopes: TraceScopes,
  ) {}

  committed(stateKey: string, report: ActivationReport, documentBytes: number): void {
    this.forward(stateKey, () => this.inner?.committed?.(stateKey, report, documentBytes));
  }

  duplicate(stateKey: string, inboxSeq: number): void {
    this.forward(stateKey, () => this.inner?.duplicate?.(stateKey, inboxSeq));
    this.scopes.span(stateKey)?.setAttribute(AgentsAttribute.Replay, true);
  }

  conflict(stateKey: string): void {
    this.forward(stateKey, () => this.inner?.conflict?.(stateKey));
    this.scopes.span(stateKey)?.addEvent('commit conflict');
  }

  fenced(stateKey: string, storedEpoch: number, ownEpoch: number): void {
    this.forward(stateKey, () => this.inner?.fenced?.(stateKey, storedEpoch, ownEpoch));
    this.scopes.span(stateKey)?.addEvent('fenced', { 'agents.stored_epoch': storedEpoch, [AgentsAttribute.OwnerEpoch]: ownEpoch });
  }

  retrying(stateKey: string, error: Error, attempt: number, delayMs: number): void {
    this.forward(stateKey, () => this.inner?.retrying?.(stateKey, error, attempt, delayMs));
    const span = this.scopes.span(stateKey);
    span?.addEvent('retry', { 'exception.type': error.name, 'agents.retry.delay_ms': delayMs });
    span?.setAttributes({ [AgentsAttribute.Attempts]: attempt + 2, [AgentsAttribute.Retried]: true });
  }

  softCap(stateKey: string): void {
    this.forward(stateKey, () => this.inner?.softCap?.(stateKey));
    this.scopes.span(stateKey)?.addEvent('working memory over soft cap');
  }

  refused(stateKey: string, reason: ErrorReason): void {
    this.forward(stateKey, () => this.inner?.refused?.(stateKey, reason));
  }

  quarantined(stateKey: string, detail: string): void {
    this.forward(stateKey, () => this.inner?.quarantined?.(stateKey, detail));
  }

  modelCall(stateKey: string, call: ModelCallRecord): void {
    this.forward(stateKey, () => this.inner?.modelCall?.(stateKey, call));
    const parent = this.scopes.get(stateKey)?.context;
    if (parent === undefined) return;
    const end = nowMs();
    const span = activatorTracer.startSpan(
      `chat ${call.model}`,
      {
        kind: SpanKind.CLIENT,
        startTime: end - call.durationMs,
        attributes: {
          [GenAiAttribute.OperationName]: 'chat',
          [GenAiAttribute.System]: this.providerName,
          [GenAiAttribute.ProviderName]: this.providerName,
          [GenAiAttribute.RequestModel]: call.model,
          [AgentsAttribute.CacheHit]: call.cacheHit,
          [AgentsAttribute.Step]: call.step,
          ...(call.promptTokens !== undefined ? { [GenAiAttribute.InputTokens]: call.promptTokens } : {}),
          ...(call.completionTokens !== undefined ? { [GenAiAttribute.OutputTokens]: call.completionTokens } : {}),
        },
      },
      parent,
    );
    span.end(end);
  }

  /** Runs the inner observer's hook inside the element's trace scope (if it records), for its log fields. */
  private forward(stateKey: string, hook: () => void): void {
    this.scopes.run(this.scopes.get(stateKey), hook);
  }
}
