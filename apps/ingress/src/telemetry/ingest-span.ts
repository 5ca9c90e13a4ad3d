import { ROOT_CONTEXT, SpanKind, SpanStatusCode, trace, type Context, type Span } from '@opentelemetry/api';
import type { JsMsg } from '@nats-io/jetstream';
import type { HeaderDoc } from '#core';
import { AgentsAttribute, carriedParent, keyAttribute, contextFromHeaders, decideDerivedRoot, ingestRootIds, MessagingAttribute, startSpanInTrace, withTraceContext, withTraceparent, type IngressMetrics } from '#telemetry';
import type { IngestDecision } from '../ingest-decision.js';

const tracer = trace.getTracer('nats-agents/ingress');

/** One ingest message's span and what its forward must carry. */
export interface IngestTrace {
  /** The decision with its trace headers replaced by the ingest span's (forwards only). */
  readonly decision: IngestDecision;
  /** The context to forward in (the ingest span active). */
  readonly context: Context;
  /** The span records (sampled in): only then is the forward run inside {@link context}. */
  readonly recording: boolean;
  /** Ends the span with the message's outcome and counts it (forwarded, refused or abandoned). */
  finish(done: boolean): void;
}

/**
 * Starts the `ingest <lane> <agent>` span of one ingest message, as the child of the publisher's
 * `traceparent` when it sent one (the effector's span for a tool result). A message without trace
 * context roots a trace derived from its ingest stream sequence, so a redelivery of it (a crash
 * before the ack, a lease handover) joins the same trace; each delivery still gets its own span,
 * marked `agents.redelivered` (the ids: {@link ingestRootIds}). The forward carries the ingest
 * span as its parent, so the activation that applies it continues the trace.
 *
 * No span is built for a message whose span would record nothing (the untraced path, with its
 * counts): a root the sampler drops (decided first, {@link decideDerivedRoot}; the forward then
 * carries the trace id and the sampled-out flag the span would have injected), and, under a
 * parent-based sampler (`parentBased`), a message whose carried parent is sampled out (its
 * headers pass on as they came). Either way the activation downstream sees a sampled-out parent
 * and skips its span too; a redelivery decides the same.
 */
export function startIngestSpan(msg: JsMsg, headers: readonly HeaderDoc[], decision: IngestDecision, stream: string, metrics: IngressMetrics, parentBased: boolean): IngestTrace {
  const lane = decision.lane;
  const name = `ingest ${lane} ${decision.agent}`;
  const parentSpan = carriedParent(headers);
  let rootTraceId: string | undefined;
  if (parentSpan === undefined) {
    const root = decideDerivedRoot(name, SpanKind.CONSUMER, ingestRootIds(stream, msg.seq));
    if (root?.sampled === false) {
      const marked = decision.kind === 'forward' ? { ...decision, headers: withTraceparent(decision.headers, root.traceparent, root.tracestate) } : decision;
      return untracedIngest(marked, metrics);
    }
    rootTraceId = root?.traceId;
  } else if (parentBased && !parentSpan.sampled) {
    return untracedIngest(decision, metrics);
  }
  const parent = contextFromHeaders(headers);
  const deliveries = msg.info.deliveryCount;
  const span: Span = startSpanInTrace(
    tracer,
    name,
    {
      kind: SpanKind.CONSUMER,
      attributes: {
        [MessagingAttribute.System]: 'nats',
        [MessagingAttribute.OperationType]: 'process',
        [MessagingAttribute.DestinationName]: msg.subject,
        [AgentsAttribute.Lane]: lane,
        [AgentsAttribute.Agent]: decision.agent,
        [AgentsAttribute.IngestSeq]: msg.seq,
        [AgentsAttribute.Deliveries]: deliveries,
        [AgentsAttribute.Redelivered]: deliveries > 1,
      },
    },
    parent,
    () => rootTraceId ?? ingestRootIds(stream, msg.seq).traceId,
  );
  const recording = span.isRecording();
  // The key's digest is a hash per message: only for a span that keeps it.
  if (recording && decision.kind === 'forward') span.setAttribute(AgentsAttribute.Key, keyAttribute(decision.token));
  const context = trace.setSpan(parent, span);
  const carried: IngestDecision = decision.kind === 'forward' ? { ...decision, headers: withTraceContext(decision.headers, context) } : decision;
  return {
    decision: carried,
    context,
    recording,
    finish(done: boolean): void {
      const outcome = !done ? 'abandoned' : decision.kind === 'forward' ? 'forwarded' : 'refused';
      span.setAttribute(AgentsAttribute.Outcome, outcome);
      if (decision.kind === 'reject') {
        span.setAttribute(AgentsAttribute.ErrorReason, decision.reason);
        span.setStatus({ code: SpanStatusCode.ERROR, message: decision.reason });
      }
      if (done) {
        metrics.messages.inc({ lane, outcome });
        if (decision.kind === 'reject') metrics.errorRecords.inc({ agent: decision.agent, reason: decision.reason });
      }
      span.end();
    },
  };
}

/**
 * A message without a span: tracing off (`currentTracing()` disabled), or sampled out (see
 * {@link startIngestSpan}). Its forward carries `decision`'s headers, and `finish` only counts the
 * outcome. Nothing would record a span, and building one per message was a measurable share of
 * ingress's CPU.
 */
export function untracedIngest(decision: IngestDecision, metrics: IngressMetrics): IngestTrace {
  return {
    decision,
    context: ROOT_CONTEXT,
    recording: false,
    finish(done: boolean): void {
      if (!done) return;
      metrics.messages.inc({ lane: decision.lane, outcome: decision.kind === 'forward' ? 'forwarded' : 'refused' });
      if (decision.kind === 'reject') metrics.errorRecords.inc({ agent: decision.agent, reason: decision.reason });
    },
  };
}
