import { SpanKind, trace } from '@opentelemetry/api';
import type { ActivationReport, ActorRuntimeObserver, ErrorReason, ModelCallRecord } from '#core';
import { AgentsAttribute, GenAiAttribute, recordingContext } from '#telemetry';
import { activatorTracer } from './activator-tracer.js';

/** Epoch milliseconds with sub-millisecond precision (span timestamps). */
const nowMs = (): number => performance.timeOrigin + performance.now();

/**
 * Decorates the runtime's observer (metrics and logs) with what traces need. Every hook forwards
 * to the inner observer first, then annotates the activation span active in the caller's
 * asynchronous context:
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
  ) {}

  committed(stateKey: string, report: ActivationReport, documentBytes: number): void {
    this.inner?.committed?.(stateKey, report, documentBytes);
  }

  duplicate(stateKey: string, inboxSeq: number): void {
    this.inner?.duplicate?.(stateKey, inboxSeq);
    trace.getActiveSpan()?.setAttribute(AgentsAttribute.Replay, true);
  }

  conflict(stateKey: string): void {
    this.inner?.conflict?.(stateKey);
    trace.getActiveSpan()?.addEvent('commit conflict');
  }

  fenced(stateKey: string, storedEpoch: number, ownEpoch: number): void {
    this.inner?.fenced?.(stateKey, storedEpoch, ownEpoch);
    trace.getActiveSpan()?.addEvent('fenced', { 'agents.stored_epoch': storedEpoch, [AgentsAttribute.OwnerEpoch]: ownEpoch });
  }

  retrying(stateKey: string, error: Error, attempt: number, delayMs: number): void {
    this.inner?.retrying?.(stateKey, error, attempt, delayMs);
    const span = trace.getActiveSpan();
    span?.addEvent('retry', { 'exception.type': error.name, 'agents.retry.delay_ms': delayMs });
    span?.setAttributes({ [AgentsAttribute.Attempts]: attempt + 2, [AgentsAttribute.Retried]: true });
  }

  softCap(stateKey: string): void {
    this.inner?.softCap?.(stateKey);
    trace.getActiveSpan()?.addEvent('working memory over soft cap');
  }

  refused(stateKey: string, reason: ErrorReason): void {
    this.inner?.refused?.(stateKey, reason);
  }

  quarantined(stateKey: string, detail: string): void {
    this.inner?.quarantined?.(stateKey, detail);
  }

  modelCall(stateKey: string, call: ModelCallRecord): void {
    this.inner?.modelCall?.(stateKey, call);
    const parent = recordingContext();
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
}
