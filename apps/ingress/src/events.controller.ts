import { Controller, HttpCode, Inject, Post, Req, UseFilters } from '@nestjs/common';
import { SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import type { IncomingMessage } from 'node:http';
import { encodeApproval, encodeToolResult, ErrorReason, HeaderName, keyedMessageId, sealElement, type AgentDefinition, type ClusterKeys, type HeaderDoc } from '#core';
import { AGENT_CATALOG, RUNTIME_CONFIG, type RuntimeConfig } from '#config';
import { encodeKeyToken, IngestLane, type Topology } from '#routing';
import { AgentsAttribute, keyAttribute, contextFromHeaders, withTraceContext } from '#telemetry';
import { NatsService, TOPOLOGY, toMsgHdrs } from '#transport';
import { decideIngest } from './ingest-decision.js';
import { AnswerBodyError, decodeApprovalBody, decodeResultBody } from './answer-bodies.js';
import { admitRequest, type Admitted, type EdgePolicy } from './http/edge-admission.js';
import { ProblemCode, ProblemError } from './http/problem.js';
import { ProblemDetailsFilter } from './http/problem-details.filter.js';
import { readBody } from './http/request-body.js';
import { CLUSTER_KEYS, EDGE_POLICY } from './ingress.tokens.js';

const tracer = trace.getTracer('nats-agents/ingress');

/** The request as Express hands it over: Node's message plus the URL as received. */
type Request = IncomingMessage & { readonly originalUrl: string };

/** The HTTP status of each ingest refusal. */
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
 * HTTP edge for clients without NATS. Every POST first passes the edge's admission (a credential
 * with the lane's scope, an enabled route, an agent name, an accepted content type and encoding:
 * see `http/edge-admission.ts`; refusals are RFC 9457 problem documents), then is validated
 * exactly as the ingest consumer will validate it (a refusal answers 4xx with the reason instead
 * of producing an error record) and stored in the ingest stream, so HTTP and NATS publishers share
 * one ordered path per key.
 *
 * Results and approvals are decoded here (JSON or protobuf) and stored as protobuf. An approval's
 * approver is the credential's principal: a body naming anyone else is refused (403), an empty one
 * is filled in. `Idempotency-Key` becomes the `Nats-Msg-Id`, scoped to the principal: a retried
 * POST is stored once, and another caller cannot pre-empt it. Each POST is a `POST <lane>` server
 * span (the child of the caller's `traceparent`, if any), and the stored message carries it.
 */
@Controller('v1/agents')
@UseFilters(ProblemDetailsFilter)
export class EventsController {
  constructor(
    @Inject(RUNTIME_CONFIG) private readonly config: RuntimeConfig,
    @Inject(AGENT_CATALOG) private readonly agents: Map<string, AgentDefinition>,
    @Inject(TOPOLOGY) private readonly topology: Topology,
    @Inject(NatsService) private readonly nats: NatsService,
    @Inject(EDGE_POLICY) private readonly policy: EdgePolicy,
    @Inject(CLUSTER_KEYS) private readonly keys: ClusterKeys,
  ) {}

  @Post(':agent/events/:key')
  @HttpCode(202)
  event(@Req() request: Request): Promise<AcceptedResponse> {
    return this.accept(IngestLane.Events, request);
  }

  @Post(':agent/results/:key')
  @HttpCode(202)
  result(@Req() request: Request): Promise<AcceptedResponse> {
    return this.accept(IngestLane.Results, request);
  }

  @Post(':agent/approvals/:key')
  @HttpCode(202)
  approval(@Req() request: Request): Promise<AcceptedResponse> {
    return this.accept(IngestLane.Approvals, request);
  }

  private async accept(lane: IngestLane, request: Request): Promise<AcceptedResponse> {
    const [rawAgent = '', rawKey = ''] = rawSegments(request.originalUrl);
    const admitted = await admitRequest({ lane, rawAgent, rawKey, headers: request.headers }, this.policy);
    const raw = await readBody(request, admitted.coding, this.config.ingress.maxEventBytes);
    const { data, contentType } = this.storedBody(lane, raw, admitted);
    const { agent, entityKey, principal } = admitted;
    const token = encodeKeyToken(entityKey);
    const subject = this.topology.ingest(lane, agent, token);
    const headers = request.headers as Record<string, string | undefined>;
    const carried: HeaderDoc[] = [];
    const eventTime = headers[HeaderName.EventTime.toLowerCase()];
    if (eventTime !== undefined) carried.push({ name: HeaderName.EventTime, value: eventTime });
    if (contentType !== undefined) carried.push({ name: HeaderName.ContentType, value: contentType });
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
        throw new ProblemError(ProblemCode.ingest_refused, decision.detail, { status: statusOf[decision.reason] ?? 400, reason: decision.reason });
      }
      const idempotencyKey = headers['idempotency-key'];
      // A result or approval is sealed for the caller just authenticated (the approver is inside
      // what the seal covers); the activator refuses one that is not (docs/decisions/0058).
      const seal = lane === IngestLane.Events ? undefined : sealElement(this.keys, { kind: lane === IngestLane.Results ? 'result' : 'approval', agent, entityKey, payload: data });
      const traced = withTraceContext(carried, trace.setSpan(parent, span));
      const stored = seal === undefined ? traced : [...traced, { name: HeaderName.Auth, value: seal.header }];
      const scopedId = `http:${principal.id}:${lane}:${agent}:${token}:${idempotencyKey ?? ''}`;
      const ack = await this.nats.js.publish(subject, data, {
        headers: toMsgHdrs(stored),
        timeout: this.config.nats.requestTimeoutMs,
        // Keyed when a cluster key is held, so a NATS publisher cannot occupy the id first.
        ...(idempotencyKey !== undefined && idempotencyKey !== '' ? { msgID: keyedMessageId(this.keys, scopedId) ?? scopedId } : {}),
      });
      span.setAttribute(AgentsAttribute.IngestSeq, ack.seq);
      return { agent, key: new TextDecoder().decode(entityKey), stream: ack.stream, seq: ack.seq, duplicate: ack.duplicate };
    } finally {
      span.end();
    }
  }

  /**
   * The bytes to store: an event as posted; a result or approval decoded and re-encoded as
   * protobuf, the approval with the principal as its approver.
   */
  private storedBody(lane: IngestLane, raw: Uint8Array, admitted: Admitted): { readonly data: Uint8Array; readonly contentType?: string } {
    if (lane === IngestLane.Events) return { data: raw };
    const contentType = admitted.format === 'json' ? 'application/json' : 'application/x-protobuf';
    try {
      if (lane === IngestLane.Results) {
        return { data: encodeToolResult(decodeResultBody(raw, admitted.entityKey, contentType)), contentType: 'application/x-protobuf' };
      }
      const approval = decodeApprovalBody(raw, contentType);
      if (approval.approver !== '' && approval.approver !== admitted.principal.id) {
        throw new ProblemError(
          ProblemCode.approver_mismatch,
          `the approval names approver ${JSON.stringify(approval.approver)}, but the credential is '${admitted.principal.id}': leave approver out (the credential decides) or send it as yourself`,
        );
      }
      return { data: encodeApproval({ ...approval, approver: admitted.principal.id }), contentType: 'application/x-protobuf' };
    } catch (error) {
      if (error instanceof AnswerBodyError) throw new ProblemError(ProblemCode.malformed_body, error.message);
      throw error;
    }
  }
}

/** The agent and key segments of `/v1/agents/<agent>/<lane>/<key>`, as they stand in the URL. */
function rawSegments(url: string): [string | undefined, string | undefined] {
  const path = url.split('?')[0] ?? '';
  const parts = path.split('/');
  // ['', 'v1', 'agents', agent, lane, key]
  return [parts[3], parts[5]];
}
