import { SpanKind, SpanStatusCode, trace, type Attributes, type Span } from '@opentelemetry/api';
import { ActorRuntime, ensureError, ErrorReason, withElementHeaders, type ActorRuntimeDeps, type ElementScope, type InboxElement, type ProcessOutcome } from '#core';
import { activationCost, AgentsAttribute, carriesUnsampledParent, keyAttribute, type ModelPrice, contextFromHeaders, derivedTraceId, startSpanInTrace, withTraceContext, type RuntimeMetrics, type TraceScope, type TraceScopes } from '#telemetry';
import { activatorTracer } from './activator-tracer.js';

/** What the traced runtime needs besides the core's dependencies. */
export interface ActivationTelemetry {
  readonly metrics: RuntimeMetrics;
  /** The deployment's subject prefix (intents are recognised by subject). */
  readonly prefix: string;
  /** The inbox partition of a key token (a span attribute). */
  readonly partitionOf: (token: string) => number;
  /**
   * Whether this process exports traces (`currentTracing().enabled`). Off, an element runs
   * without a span, a trace scope or log fields: nothing would record them.
   */
  readonly tracing: boolean;
  /**
   * The sampler follows the parent (`Tracing.parentBased`): an element whose carried parent is
   * sampled out is then processed as with tracing off (no span, its headers passed on as they came,
   * so what it causes stays in the same trace, sampled out). Absent: every element gets a span.
   */
  readonly parentBased?: boolean;
  /**
   * Where a recording element's span is found by its children (state store, outbox publisher,
   * long-term flush, observer): the same instance {@link composeCommitPath} was given.
   */
  readonly scopes: TraceScopes;
  /** Price per model name (alias or model id, as the agent calls it): the activation span's `agents.cost.usd`. */
  readonly prices?: Readonly<Record<string, ModelPrice>>;
}

/**
 * The actor runtime with each inbox element processed inside an `activate <agent>` span and timed.
 *
 * The span continues the trace the element carries (`traceparent`: ingress's span, the effector's
 * for a result, or the publisher's for a direct event); an element without one roots a trace
 * derived from its identity (key and inbox sequence), so every delivery of it — a redelivery, a
 * retry after a crash, a replay — lands in the same trace. The element's trace headers are
 * replaced by the activation span's before the core sees them, so everything the commit publishes
 * (outputs, intents, error records, deferred events) is the activation's child. They are replaced
 * once per delivery: an in-place retry (a lost CAS, an outage) commits byte-identical outbox
 * headers. Children: `chat <model>` per model call, `longterm.flush`; the state and outbox steps
 * (`state.load`, `state.commit`, `outbox.publish`) are events of the span, or children with
 * `AGENTS_TRACE_STEPS=spans` (decision 0087).
 *
 * The span says what happened: status, seq, resumed or not, outputs, intents, working-memory
 * size, model calls and cache hits, error reason, deliveries (`agents.redelivered`), in-place
 * attempts (`agents.retried`) and, for an element already applied, `agents.replay`. The children
 * find the span through the element's {@link TraceScope}, opened under its state key for the
 * element's duration (never through an async context: decision 0076). Metrics:
 * activation and overhead (minus model time) latency by agent and status, intents emitted,
 * suspensions, orphaned results and working-memory bytes come from the observer and here.
 */
export class TracedActorRuntime extends ActorRuntime {
  private readonly telemetry: ActivationTelemetry;

  /** @param deps the runtime's ports as {@link composeCommitPath} wrapped them (child spans come from there). */
  constructor(deps: ActorRuntimeDeps, telemetry: ActivationTelemetry) {
    super(deps);
    this.telemetry = telemetry;
  }

  override process(element: InboxElement, scope: ElementScope): Promise<ProcessOutcome> {
    if (!this.telemetry.tracing) return this.timed(element, scope);
    // Nine elements in ten at a 10 % ratio: no span, context, header rewrite or scope for a decision already made upstream.
    if (this.telemetry.parentBased === true && carriesUnsampledParent(element.headers)) return this.timed(element, scope);
    return this.traced(element, scope);
  }

  /** Tracing off: the element is only timed (metrics); its trace headers pass through as they came. */
  private async timed(element: InboxElement, scope: ElementScope): Promise<ProcessOutcome> {
    const started = performance.now();
    const outcome = await super.process(element, scope);
    this.time(scope.agent, outcome, (performance.now() - started) / 1_000);
    return outcome;
  }

  private async traced(element: InboxElement, scope: ElementScope): Promise<ProcessOutcome> {
    const token = scope.stateKey.slice(scope.stateKey.indexOf('.') + 1);
    const started = performance.now();
    const parent = contextFromHeaders(element.headers);
    const deliveries = element.deliveries ?? 1;
    const attributes: Attributes = {
      [AgentsAttribute.Agent]: scope.agent,
      [AgentsAttribute.Partition]: this.telemetry.partitionOf(token),
      [AgentsAttribute.InboxSeq]: element.inboxSeq,
      [AgentsAttribute.ElementKind]: element.payload.kind,
      [AgentsAttribute.OwnerEpoch]: scope.ownerEpoch,
      [AgentsAttribute.Deliveries]: deliveries,
      [AgentsAttribute.Redelivered]: deliveries > 1,
      [AgentsAttribute.Attempts]: 1,
      [AgentsAttribute.Retried]: false,
    };
    // Set, not spread from a conditional literal: no second object per sampled activation.
    if (element.direct === true) attributes[AgentsAttribute.Direct] = true;
    const span = startSpanInTrace(
      activatorTracer,
      `activate ${scope.agent}`,
      { kind: SpanKind.CONSUMER, attributes },
      parent,
      () => derivedTraceId('inbox', scope.stateKey, element.inboxSeq),
    );
    const active = trace.setSpan(parent, span);
    // The outbox carries the activation's traceparent either way, so what it causes follows the
    // same sampling decision (parent-based) downstream.
    // Built as every element is (withElementHeaders), not spread: one object shape on the hot path.
    const traced: InboxElement = withElementHeaders(element, withTraceContext(element.headers, active));
    const recording = span.isRecording();
    // The key's digest is a hash per element: only for a span that keeps it.
    if (recording) span.setAttribute(AgentsAttribute.Key, keyAttribute(token));
    // Sampled out, nothing records the scope or its log fields: no scope, so no child spans either.
    const opened: TraceScope | undefined = recording ? { context: active, fields: { agent: scope.agent, key: token } } : undefined;
    const close = opened === undefined ? undefined : this.telemetry.scopes.open(scope.stateKey, opened);
    try {
      const outcome = await this.telemetry.scopes.run(opened, () => super.process(traced, scope));
      // A span that records nothing (sampled out) drops attributes and status.
      if (recording) this.describe(span, outcome);
      this.time(scope.agent, outcome, (performance.now() - started) / 1_000);
      return outcome;
    } catch (thrown) {
      const error = ensureError(thrown);
      span.recordException(error);
      span.setStatus({ code: SpanStatusCode.ERROR, message: error.name });
      throw thrown;
    } finally {
      close?.();
      span.end();
    }
  }

  private describe(span: Span, outcome: ProcessOutcome): void {
    const attributes: Attributes = { [AgentsAttribute.Outcome]: outcome.kind };
    switch (outcome.kind) {
      case 'applied': {
        const report = outcome.report;
        Object.assign(attributes, {
          [AgentsAttribute.Status]: report.status,
          [AgentsAttribute.Seq]: report.seq,
          [AgentsAttribute.Resumed]: report.resumed ?? false,
          [AgentsAttribute.Outputs]: report.outputs,
          [AgentsAttribute.Intents]: report.intents ?? 0,
          ...(report.memoryBytes !== undefined ? { [AgentsAttribute.MemoryBytes]: report.memoryBytes } : {}),
          ...(report.tally !== undefined ? { [AgentsAttribute.ModelCalls]: report.tally.modelCalls.length, [AgentsAttribute.CacheHits]: report.tally.cacheHits } : {}),
          ...(report.tally !== undefined && this.telemetry.prices !== undefined ? costAttribute(report.tally.modelCalls, this.telemetry.prices) : {}),
          ...(report.reason !== undefined ? { [AgentsAttribute.ErrorReason]: report.reason } : {}),
        });
        if (report.reason !== undefined) span.setStatus({ code: SpanStatusCode.ERROR, message: report.reason });
        break;
      }
      case 'duplicate':
        attributes[AgentsAttribute.Replay] = true;
        break;
      case 'refused':
        attributes[AgentsAttribute.ErrorReason] = outcome.reason;
        span.setStatus({ code: SpanStatusCode.ERROR, message: outcome.reason });
        break;
      case 'fenced':
        span.setStatus({ code: SpanStatusCode.ERROR, message: `fenced by owner epoch ${outcome.storedEpoch}` });
        break;
      case 'quarantined':
        attributes[AgentsAttribute.ErrorReason] = ErrorReason.StateQuarantined;
        span.setStatus({ code: SpanStatusCode.ERROR, message: outcome.detail });
        break;
      case 'noop':
      case 'abandoned':
        break;
    }
    span.setAttributes(attributes);
  }

  private time(agent: string, outcome: ProcessOutcome, seconds: number): void {
    const status = outcome.kind === 'applied' ? outcome.report.status : outcome.kind;
    const modelSeconds = outcome.kind === 'applied' ? (outcome.report.tally?.providerMs ?? 0) / 1_000 : 0;
    this.telemetry.metrics.activationLatency.observe({ agent, status }, seconds);
    this.telemetry.metrics.overheadLatency.observe({ agent, status }, Math.max(0, seconds - modelSeconds));
  }
}

/** `agents.cost.usd` for the activation's priced provider calls; nothing when no call was priced. */
function costAttribute(calls: Parameters<typeof activationCost>[0], prices: Readonly<Record<string, ModelPrice>>): Attributes {
  const cost = activationCost(calls, prices);
  return cost.byModel.size === 0 ? {} : { [AgentsAttribute.CostUsd]: cost.totalUsd };
}
