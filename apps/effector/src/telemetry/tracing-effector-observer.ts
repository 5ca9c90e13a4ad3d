import { SpanKind, SpanStatusCode } from '@opentelemetry/api';
import { ToolResultStatus, type ErrorReason } from '#core';
import { AgentsAttribute, type TraceScopes } from '#telemetry';
import type { EffectorObserver, StoreOperation } from '../effector-observer.js';
import { statusName } from '../tool-verdict.js';
import { effectorTracer } from './effector-tracer.js';

const nowMs = (): number => performance.timeOrigin + performance.now();

/**
 * Decorates the effector's observer (metrics and logs) with what traces need, annotating the
 * `execute` span of the intent the hook names (its trace scope in the processor's
 * {@link TraceScopes}; never an async context, decision 0076): a finished or halted tool run becomes a
 * `tool <name>` child span (back-dated by its measured duration; attempts and status as
 * attributes), a dedup republish marks the span `agents.deduped`, waits and store retries become
 * events. Forwards every call to the inner observer first — inside the intent's trace scope when
 * it records, so the lines it logs carry `agent`, `key`, `intent`, `trace_id` and `span_id`;
 * never throws.
 */
export class TracingEffectorObserver implements EffectorObserver {
  constructor(
    private readonly inner: EffectorObserver,
    private readonly scopes: TraceScopes,
  ) {}

  refused(intentId: string, reason: ErrorReason, detail: string): void {
    this.forward(intentId, () => this.inner.refused(intentId, reason, detail));
    this.scopes.span(intentId)?.setAttribute(AgentsAttribute.ErrorReason, reason);
  }

  unsignedAccepted(intentId: string): void {
    this.forward(intentId, () => this.inner.unsignedAccepted(intentId));
    this.scopes.span(intentId)?.addEvent('unsigned intent accepted');
  }

  deduped(intentId: string): void {
    this.forward(intentId, () => this.inner.deduped(intentId));
    this.scopes.span(intentId)?.setAttribute(AgentsAttribute.Deduped, true);
  }

  inFlightWait(intentId: string, attempt: number, delayMs: number): void {
    this.forward(intentId, () => this.inner.inFlightWait(intentId, attempt, delayMs));
    this.scopes.span(intentId)?.addEvent('claim held elsewhere', { 'agents.wait': attempt + 1, 'agents.retry.delay_ms': delayMs });
  }

  storeRetry(operation: StoreOperation, intentId: string, error: Error, attempt: number, delayMs: number): void {
    this.forward(intentId, () => this.inner.storeRetry(operation, intentId, error, attempt, delayMs));
    this.scopes.span(intentId)?.addEvent(`${operation} retry`, { 'exception.type': error.name, 'agents.retry.delay_ms': delayMs });
  }

  toolFinished(tool: string, intentId: string, status: ToolResultStatus, durationMs: number, attempts: number): void {
    this.forward(intentId, () => this.inner.toolFinished(tool, intentId, status, durationMs, attempts));
    this.scopes.span(intentId)?.setAttribute(AgentsAttribute.ToolAttempts, attempts);
    this.toolSpan(tool, intentId, durationMs, { [AgentsAttribute.ResultStatus]: statusName(status), [AgentsAttribute.ToolAttempts]: attempts }, status === ToolResultStatus.Ok ? undefined : statusName(status));
  }

  toolHalted(tool: string, intentId: string, durationMs: number): void {
    this.forward(intentId, () => this.inner.toolHalted(tool, intentId, durationMs));
    this.toolSpan(tool, intentId, durationMs, { [AgentsAttribute.Outcome]: 'halted' }, 'halted');
  }

  resultPublished(intentId: string, status: ToolResultStatus): void {
    this.forward(intentId, () => this.inner.resultPublished(intentId, status));
  }

  claimLost(intentId: string): void {
    this.forward(intentId, () => this.inner.claimLost(intentId));
    this.scopes.span(intentId)?.addEvent('claim lost');
  }

  claimReleased(intentId: string, released: boolean): void {
    this.forward(intentId, () => this.inner.claimReleased(intentId, released));
    this.scopes.span(intentId)?.addEvent(released ? 'claim released' : 'claim release failed');
  }

  publishFailed(intentId: string, error: Error, attempts: number): void {
    this.forward(intentId, () => this.inner.publishFailed(intentId, error, attempts));
    this.scopes.span(intentId)?.addEvent('publish failed', { 'exception.type': error.name, 'agents.attempts': attempts });
  }

  private toolSpan(tool: string, intentId: string, durationMs: number, attributes: Record<string, string | number>, failure: string | undefined): void {
    // Only under a recording intent span: from the empty context it would root an orphan trace.
    const parent = this.scopes.get(intentId)?.context;
    if (parent === undefined) return;
    const end = nowMs();
    const span = effectorTracer.startSpan(`tool ${tool}`, { kind: SpanKind.INTERNAL, startTime: end - durationMs, attributes: { [AgentsAttribute.Tool]: tool, ...attributes } }, parent);
    if (failure !== undefined) span.setStatus({ code: SpanStatusCode.ERROR, message: failure });
    span.end(end);
  }

  /** Runs the inner observer's hook inside the intent's trace scope (if it records), for its log fields. */
  private forward(intentId: string, hook: () => void): void {
    this.scopes.run(this.scopes.get(intentId), hook);
  }
}
