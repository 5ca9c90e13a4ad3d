import { SpanKind, SpanStatusCode, trace, type Attributes } from '@opentelemetry/api';
import { AGENT_NAME_PATTERN, ensureError } from '#core';
import { encodeKeyToken, UNNAMED_AGENT } from '#routing';
import { AgentsAttribute, carriesUnsampledParent, keyAttribute, contextFromHeaders, derivedTraceId, MessagingAttribute, startSpanInTrace, TraceScopes, withTraceContext, type EffectorMetrics, type TraceScope, type Tracing } from '#telemetry';
import type { DecodedDelivery } from '../intent-delivery.js';
import type { IntentOutcome } from '../intent-outcome.js';
import { IntentProcessor, type IntentProcessorDeps, type ProcessScope } from '../intent-processor.js';
import { statusName } from '../tool-verdict.js';
import { effectorTracer } from './effector-tracer.js';
import { TracingEffectorObserver } from './tracing-effector-observer.js';

/**
 * The intent processor with each delivery processed inside an `execute <tool>` span.
 *
 * The span is the child of the intent message's `traceparent` — the activation that committed the
 * intent — so the tool's execution sits in the activation's trace. An intent without trace context
 * roots the trace its `traceId` field names (the core derives it from agent, key and seq), else one
 * derived from its intent id, so every delivery of one intent (a redelivery, a replayed copy)
 * lands in one trace. The delivery's trace headers are replaced by the execute span's before
 * the protocol runs, so the result (and any refusal record) it publishes is that span's child and
 * the resumed activation continues the same trace. A child `tool <name>` span covers the tool run:
 * the observer finds the execute span by intent id in the processor's {@link TraceScopes}, opened
 * for a recording delivery's duration (never through an async context, decision 0076).
 *
 * Attributes: intent id, agent, key token, tool, seq, deliveries (`agents.redelivered`), outcome,
 * result status, whether the tool ran, tool attempts, `agents.deduped` for a completed intent whose
 * stored result was re-published. Counts `agents_error_records_total` for each refusal record
 * published.
 *
 * No span at all with tracing off, or, under a parent-based sampler, for an intent whose carried
 * parent is sampled out: nothing would record it. The delivery then runs with its headers as they
 * came, so its result carries the activation's sampled-out `traceparent` and the resumed
 * activation skips its span too. Refusals are counted either way.
 */
export class TracedIntentProcessor extends IntentProcessor {
  private readonly metrics: EffectorMetrics;
  private readonly scopes: TraceScopes;

  private readonly tracing: Pick<Tracing, 'enabled' | 'parentBased'>;

  /** @param tracing whether this process exports traces and follows parents' sampling (`currentTracing()`). */
  constructor(deps: IntentProcessorDeps, metrics: EffectorMetrics, tracing: Pick<Tracing, 'enabled' | 'parentBased'>) {
    const scopes = new TraceScopes();
    super({ ...deps, observer: new TracingEffectorObserver(deps.observer, scopes) });
    this.metrics = metrics;
    this.scopes = scopes;
    this.tracing = tracing;
  }

  override process(decoded: DecodedDelivery, scope: ProcessScope): Promise<IntentOutcome> {
    if (!this.tracing.enabled || (this.tracing.parentBased && carriesUnsampledParent(decoded.delivery.headers))) return this.untraced(decoded, scope);
    return this.traced(decoded, scope);
  }

  /** No span: the delivery runs as it came; only refusals are counted. */
  private async untraced(decoded: DecodedDelivery, scope: ProcessScope): Promise<IntentOutcome> {
    const outcome = await super.process(decoded, scope);
    if (outcome.kind === 'refused') this.countRefusal(decoded, outcome.reason);
    return outcome;
  }

  private countRefusal(decoded: DecodedDelivery, reason: string): void {
    const intent = decoded.kind === 'intent' ? decoded.intent : undefined;
    const agent = intent !== undefined && AGENT_NAME_PATTERN.test(intent.agent) ? intent.agent : UNNAMED_AGENT;
    this.metrics.errorRecords.inc({ agent, reason });
  }

  private async traced(decoded: DecodedDelivery, scope: ProcessScope): Promise<IntentOutcome> {
    const delivery = decoded.delivery;
    const intent = decoded.kind === 'intent' ? decoded.intent : undefined;
    const deliveries = delivery.deliveries ?? 1;
    const parent = contextFromHeaders(delivery.headers);
    const stored = intent !== undefined && intent.traceId.length === 16 && intent.traceId.some((b) => b !== 0) ? Buffer.from(intent.traceId).toString('hex') : undefined;
    const key = intent !== undefined && intent.entityKey.length > 0 ? encodeKeyToken(intent.entityKey) : undefined;
    const attributes: Attributes = {
      [MessagingAttribute.System]: 'nats',
      [MessagingAttribute.OperationType]: 'process',
      [MessagingAttribute.DestinationName]: delivery.subject,
      [AgentsAttribute.Deliveries]: deliveries,
      [AgentsAttribute.Redelivered]: deliveries > 1,
      ...(intent !== undefined
        ? { [AgentsAttribute.IntentId]: intent.intentId, [AgentsAttribute.Agent]: intent.agent, [AgentsAttribute.Tool]: intent.toolName, [AgentsAttribute.Seq]: intent.seq }
        : {}),
    };
    const span = startSpanInTrace(
      effectorTracer,
      intent !== undefined ? `execute ${intent.toolName}` : 'execute',
      { kind: SpanKind.CONSUMER, attributes },
      parent,
      () => stored ?? derivedTraceId('intent', intent?.intentId ?? `${delivery.subject}|${delivery.publishedAtMs}`),
    );
    const recording = span.isRecording();
    // The key's digest is a hash per intent: only for a span that keeps it.
    if (recording && key !== undefined) span.setAttribute(AgentsAttribute.Key, keyAttribute(key));
    const active = trace.setSpan(parent, span);
    const traced: DecodedDelivery = { ...decoded, delivery: { ...delivery, headers: withTraceContext(delivery.headers, active) } };
    // Sampled out, nothing records the scope or its log fields: no scope, so no child spans either.
    const opened: TraceScope | undefined = recording
      ? { context: active, fields: { ...(intent !== undefined ? { agent: intent.agent, intent: intent.intentId } : {}), ...(key !== undefined ? { key } : {}) } }
      : undefined;
    // Keyed by intent id (what every observer hook names); one delivery of an intent runs at a time here.
    const close = opened === undefined || intent === undefined ? undefined : this.scopes.open(intent.intentId, opened);
    try {
      const outcome = await this.scopes.run(opened, () => super.process(traced, scope));
      span.setAttribute(AgentsAttribute.Outcome, outcome.kind);
      if (outcome.kind === 'published') {
        span.setAttributes({ [AgentsAttribute.ResultStatus]: statusName(outcome.status), [AgentsAttribute.Executed]: outcome.executed });
      } else if (outcome.kind === 'refused') {
        this.countRefusal(decoded, outcome.reason);
        span.setStatus({ code: SpanStatusCode.ERROR, message: outcome.reason });
      } else if (outcome.kind === 'republished') {
        span.setAttribute(AgentsAttribute.Deduped, true);
      }
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
}
