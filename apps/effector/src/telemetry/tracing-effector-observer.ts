import { SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import { ToolResultStatus, type ErrorReason } from '#core';
import { AgentsAttribute, recordingContext } from '#telemetry';
import type { EffectorObserver, StoreOperation } from '../effector-observer.js';
import { statusName } from '../tool-verdict.js';
import { effectorTracer } from './effector-tracer.js';

const nowMs = (): number => performance.timeOrigin + performance.now();

/**
 * Decorates the effector's observer (metrics and logs) with what traces need, annotating the
 * `execute` span active in the caller's context: a finished or halted tool run becomes a
 * `tool <name>` child span (back-dated by its measured duration; attempts and status as
 * attributes), a dedup republish marks the span `agents.deduped`, waits and store retries become
 * events. Forwards every call to the inner observer first; never throws.
 */
export class TracingEffectorObserver implements EffectorObserver {
  constructor(private readonly inner: EffectorObserver) {}

  refused(intentId: string, reason: ErrorReason, detail: string): void {
    this.inner.refused(intentId, reason, detail);
    trace.getActiveSpan()?.setAttribute(AgentsAttribute.ErrorReason, reason);
  }

  unsignedAccepted(intentId: string): void {
    this.inner.unsignedAccepted(intentId);
    trace.getActiveSpan()?.addEvent('unsigned intent accepted');
  }

  deduped(intentId: string): void {
    this.inner.deduped(intentId);
    trace.getActiveSpan()?.setAttribute(AgentsAttribute.Deduped, true);
  }

  inFlightWait(intentId: string, attempt: number, delayMs: number): void {
    this.inner.inFlightWait(intentId, attempt, delayMs);
    trace.getActiveSpan()?.addEvent('claim held elsewhere', { 'agents.wait': attempt + 1, 'agents.retry.delay_ms': delayMs });
  }

  storeRetry(operation: StoreOperation, intentId: string, error: Error, attempt: number, delayMs: number): void {
    this.inner.storeRetry(operation, intentId, error, attempt, delayMs);
    trace.getActiveSpan()?.addEvent(`${operation} retry`, { 'exception.type': error.name, 'agents.retry.delay_ms': delayMs });
  }

  toolFinished(tool: string, intentId: string, status: ToolResultStatus, durationMs: number, attempts: number): void {
    this.inner.toolFinished(tool, intentId, status, durationMs, attempts);
    trace.getActiveSpan()?.setAttribute(AgentsAttribute.ToolAttempts, attempts);
    this.toolSpan(tool, durationMs, { [AgentsAttribute.ResultStatus]: statusName(status), [AgentsAttribute.ToolAttempts]: attempts }, status === ToolResultStatus.Ok ? undefined : statusName(status));
  }

  toolHalted(tool: string, intentId: string, durationMs: number): void {
    this.inner.toolHalted(tool, intentId, durationMs);
    this.toolSpan(tool, durationMs, { [AgentsAttribute.Outcome]: 'halted' }, 'halted');
  }

  resultPublished(intentId: string, status: ToolResultStatus): void {
    this.inner.resultPublished(intentId, status);
  }

  claimLost(intentId: string): void {
    this.inner.claimLost(intentId);
    trace.getActiveSpan()?.addEvent('claim lost');
  }

  claimReleased(intentId: string, released: boolean): void {
    this.inner.claimReleased(intentId, released);
    trace.getActiveSpan()?.addEvent(released ? 'claim released' : 'claim release failed');
  }

  publishFailed(intentId: string, error: Error, attempts: number): void {
    this.inner.publishFailed(intentId, error, attempts);
    trace.getActiveSpan()?.addEvent('publish failed', { 'exception.type': error.name, 'agents.attempts': attempts });
  }

  private toolSpan(tool: string, durationMs: number, attributes: Record<string, string | number>, failure: string | undefined): void {
    // Only under a recording intent span: from the empty context it would root an orphan trace.
    const parent = recordingContext();
    if (parent === undefined) return;
    const end = nowMs();
    const span = effectorTracer.startSpan(`tool ${tool}`, { kind: SpanKind.INTERNAL, startTime: end - durationMs, attributes: { [AgentsAttribute.Tool]: tool, ...attributes } }, parent);
    if (failure !== undefined) span.setStatus({ code: SpanStatusCode.ERROR, message: failure });
    span.end(end);
  }
}
