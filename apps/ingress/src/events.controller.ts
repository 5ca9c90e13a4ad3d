import { Body, Controller, Headers, HttpCode, HttpException, Inject, Param, Post } from '@nestjs/common';
import { SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import { ErrorReason, HeaderName, type AgentDefinition, type HeaderDoc } from '#core';
import { AGENT_CATALOG, RUNTIME_CONFIG, type RuntimeConfig } from '#config';
import { encodeKeyToken, IngestLane, keyFromText, type Topology } from '#routing';
import { AgentsAttribute, keyAttribute, contextFromHeaders, withTraceContext } from '#telemetry';
import { NatsService, TOPOLOGY, toMsgHdrs } from '#transport';
import { decideIngest } from './ingest-decision.js';

const tracer = trace.getTracer('nats-agents/ingress');

/** The HTTP status of each ingress refusal. */
const statusOf: Partial<Record<ErrorReason, number>> = {
  [ErrorReason.UnknownAgent]: 404,
  [ErrorReason.PayloadTooLarge]: 413,
};

/** What a POST answers when the message was stored. */
export interface AcceptedResponse {
  readonly agent: string;
  readonly key: string;
  readonly stream: string;
  readonly seq: number;
  /** True when an `Idempotency-Key` matched an earlier publish inside the dedupe window. */
  readonly duplicate: boolean;
}

/**
 * HTTP edge for clients without NATS. A POST is validated exactly as the ingest consumer will
 * validate it (a refusal answers 4xx with the reason instead of producing an error record) and
 * then stored in the ingest stream, so HTTP and NATS publishers share one ordered path per key.
 * `Idempotency-Key` becomes the `Nats-Msg-Id`: a retried POST is stored once. Each POST is a
 * `POST <lane>` server span (the child of the caller's `traceparent`, if any), and the stored
 * message carries it, so the ingest consumer's span and everything after it join the caller's trace.
 */
@Controller('v1/agents')
export class EventsController {
  constructor(
    @Inject(RUNTIME_CONFIG) private readonly config: RuntimeConfig,
    @Inject(AGENT_CATALOG) private readonly agents: Map<string, AgentDefinition>,
    @Inject(TOPOLOGY) private readonly topology: Topology,
    @Inject(NatsService) private readonly nats: NatsService,
  ) {}

  @Post(':agent/events/:key')
  @HttpCode(202)
  event(@Param('agent') agent: string, @Param('key') key: string, @Body() body: unknown, @Headers() headers: Record<string, string | undefined>): Promise<AcceptedResponse> {
    return this.accept(IngestLane.Events, agent, key, body, headers);
  }

  @Post(':agent/results/:key')
  @HttpCode(202)
  result(@Param('agent') agent: string, @Param('key') key: string, @Body() body: unknown, @Headers() headers: Record<string, string | undefined>): Promise<AcceptedResponse> {
    return this.accept(IngestLane.Results, agent, key, body, headers);
  }

  @Post(':agent/approvals/:key')
  @HttpCode(202)
  approval(@Param('agent') agent: string, @Param('key') key: string, @Body() body: unknown, @Headers() headers: Record<string, string | undefined>): Promise<AcceptedResponse> {
    return this.accept(IngestLane.Approvals, agent, key, body, headers);
  }

  private async accept(lane: IngestLane, agent: string, key: string, body: unknown, headers: Record<string, string | undefined>): Promise<AcceptedResponse> {
    const data = body instanceof Uint8Array ? body : new Uint8Array(0);
    const entityKey = keyFromText(key);
    if (entityKey.length === 0) throw new HttpException({ reason: ErrorReason.KeyInvalid, detail: 'the key is empty' }, 400);
    const token = encodeKeyToken(entityKey);
    const subject = this.topology.ingest(lane, /^[a-z][a-z0-9_-]{0,63}$/.test(agent) ? agent : '_', token);
    const carried: HeaderDoc[] = [];
    const eventTime = headers[HeaderName.EventTime.toLowerCase()];
    if (eventTime !== undefined) carried.push({ name: HeaderName.EventTime, value: eventTime });
    const contentType = headers['content-type'];
    if (contentType !== undefined && lane !== IngestLane.Events) carried.push({ name: HeaderName.ContentType, value: contentType });
    for (const name of [HeaderName.Traceparent, HeaderName.Tracestate]) {
      const value = headers[name];
      if (value !== undefined) carried.push({ name, value });
    }

    const parent = contextFromHeaders(carried);
    const span = tracer.startSpan(`POST ${lane}`, { kind: SpanKind.SERVER, attributes: { [AgentsAttribute.Lane]: lane, [AgentsAttribute.Agent]: agent, [AgentsAttribute.Key]: keyAttribute(token) } }, parent);
    try {
      const decision = decideIngest({ subject, data, headers: carried, ingestTimeMs: Date.now() }, this.agents, this.topology, this.config.ingress);
      if (decision.kind === 'reject') {
        span.setAttribute(AgentsAttribute.ErrorReason, decision.reason);
        span.setStatus({ code: SpanStatusCode.ERROR, message: decision.reason });
        throw new HttpException({ reason: decision.reason, detail: decision.detail }, statusOf[decision.reason] ?? 400);
      }
      const idempotencyKey = headers['idempotency-key'];
      const ack = await this.nats.js.publish(subject, data, {
        headers: toMsgHdrs(withTraceContext(carried, trace.setSpan(parent, span))),
        timeout: this.config.nats.requestTimeoutMs,
        ...(idempotencyKey !== undefined && idempotencyKey !== '' ? { msgID: `http:${agent}:${token}:${idempotencyKey}` } : {}),
      });
      span.setAttribute(AgentsAttribute.IngestSeq, ack.seq);
      return { agent, key, stream: ack.stream, seq: ack.seq, duplicate: ack.duplicate };
    } finally {
      span.end();
    }
  }
}
