/**
 * Who may post what to ingress's HTTP API: the checks a request passes, in order, before its body
 * is read. Each failed check is a {@link ProblemError} (RFC 9457); nothing is stored.
 *
 * 1. the route is enabled (`ingress.routes`: results and approvals are off unless turned on) — 404;
 * 2. a browser's `Origin`, when present, is in `ingress.allowedOrigins` — 403;
 * 3. a credential (API key or JWT bearer, `#auth`) is presented and valid — 401 (503 when a JWKS
 *    cannot be fetched);
 * 4. the agent segment is an agent name — 400 naming the rule;
 * 5. the principal holds the lane's scope for the agent (see `ingress-scope.ts`) — 403;
 * 6. `Content-Encoding` is identity, gzip or deflate — 415;
 * 7. `Content-Type` is one the route takes, and never one a browser may send cross-origin without
 *    a preflight (`text/plain`, `application/x-www-form-urlencoded`, `multipart/form-data`) — 415;
 * 8. the key (path segment or `Agents-Key`) can be read — 400.
 *
 * Cross-site request forgery is stopped three times over: a browser cannot attach the credential
 * header cross-origin without a CORS preflight (which ingress never grants), cannot send a JSON or
 * protobuf content type without one either, and a listed-origin check refuses what remains.
 */
import type { Authenticator, Principal } from '#auth';
import { IngestLane } from '#routing';
import { ProblemCode, ProblemError } from './problem.js';
import { LANE_ACTION, mayUseLane, requiredScope } from './ingress-scope.js';
import { agentFromSegment, keyOfRequest, single, type RawHeaders } from './request-key.js';

/** How a body is encoded on the wire (what the edge decodes before anything else). */
export type ContentCoding = 'identity' | 'gzip' | 'deflate';

/** How a result or approval body is to be read; events are opaque bytes. */
export type BodyFormat = 'json' | 'protobuf' | 'opaque';

/** What the edge enforces, from the runtime configuration. */
export interface EdgePolicy {
  readonly authenticator: Authenticator;
  readonly routes: { readonly results: { readonly enabled: boolean }; readonly approvals: { readonly enabled: boolean } };
  readonly allowedOrigins: readonly string[];
}

/** One request as the edge sees it before reading the body. */
export interface EdgeRequest {
  readonly lane: IngestLane;
  /** The agent path segment as it stands in the URL (percent-escapes not decoded). */
  readonly rawAgent: string;
  /** The key path segment as it stands in the URL. */
  readonly rawKey: string;
  /** Request headers, names in lower case. */
  readonly headers: RawHeaders;
}

/** A request that passed every check. */
export interface Admitted {
  readonly principal: Principal;
  readonly agent: string;
  readonly entityKey: Uint8Array;
  readonly coding: ContentCoding;
  readonly format: BodyFormat;
}

/** Media types a browser may send cross-origin without a preflight (the CORS-safelisted ones). */
const BROWSER_SIMPLE = new Set(['text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data']);
const PROTOBUF = new Set(['application/x-protobuf', 'application/protobuf', 'application/vnd.google.protobuf']);

/**
 * Runs the checks in order and returns the admitted request.
 *
 * @throws {ProblemError} at the first check that fails.
 */
export async function admitRequest(request: EdgeRequest, policy: EdgePolicy): Promise<Admitted> {
  const { lane, headers } = request;
  if (lane !== IngestLane.Events && !policy.routes[lane].enabled) {
    throw new ProblemError(ProblemCode.route_disabled, `${lane} over HTTP are off in this deployment (ingress.routes.${lane}.enabled); publish them over NATS, or turn the route on`);
  }

  const origin = single(headers.origin);
  if (origin !== undefined && (origin === null || !policy.allowedOrigins.includes(origin))) {
    throw new ProblemError(ProblemCode.origin_refused, `requests from origin ${JSON.stringify(origin)} are refused (ingress.allowedOrigins lists the browser origins allowed to call this API)`);
  }

  const outcome = await policy.authenticator.authenticateHeaders(headers);
  if (!outcome.ok) {
    if (outcome.reason === 'verifier_unavailable') throw new ProblemError(ProblemCode.verifier_unavailable, outcome.detail, { authReason: outcome.reason });
    throw new ProblemError(ProblemCode.unauthenticated, `${outcome.detail}: send Authorization: Bearer <API key or JWT>, or X-Api-Key: <API key>`, { authReason: outcome.reason });
  }
  const principal = outcome.principal;

  const agent = agentFromSegment(request.rawAgent);
  if (!agent.ok) throw new ProblemError(ProblemCode.invalid_agent_name, agent.problem);

  if (!mayUseLane(principal, lane, agent.value)) {
    throw new ProblemError(ProblemCode.missing_scope, `'${principal.id}' may not use ${lane} of agent '${agent.value}': it needs the scope ${requiredScope(lane, agent.value)} (or ${LANE_ACTION[lane]} for every agent)`);
  }

  const coding = contentCoding(single(headers['content-encoding']));
  const format = bodyFormat(lane, single(headers['content-type']));

  const key = keyOfRequest(request.rawKey, headers);
  if (!key.ok) throw new ProblemError(ProblemCode.invalid_key, key.problem);

  return { principal, agent: agent.value, entityKey: key.value, coding, format };
}

function contentCoding(header: string | undefined | null): ContentCoding {
  const value = header?.trim().toLowerCase();
  if (value === undefined || value === '' || value === 'identity') return 'identity';
  if (value === 'gzip' || value === 'x-gzip') return 'gzip';
  if (value === 'deflate') return 'deflate';
  throw new ProblemError(ProblemCode.unsupported_content_encoding, `Content-Encoding ${JSON.stringify(header)} is not supported: send identity (none), gzip or deflate`);
}

function bodyFormat(lane: IngestLane, header: string | undefined | null): BodyFormat {
  if (header === null) throw new ProblemError(ProblemCode.unsupported_media_type, 'Content-Type is repeated');
  const mediaType = header?.split(';')[0]?.trim().toLowerCase();
  if (mediaType !== undefined && BROWSER_SIMPLE.has(mediaType)) {
    throw new ProblemError(
      ProblemCode.unsupported_media_type,
      `Content-Type ${mediaType} is refused: browsers send it cross-origin without asking. Send ${lane === IngestLane.Events ? 'application/json, or application/octet-stream for other bytes' : 'application/json (the documented JSON form) or application/x-protobuf'}`,
    );
  }
  const json = mediaType !== undefined && (mediaType === 'application/json' || mediaType.endsWith('+json'));
  if (lane === IngestLane.Events) return json ? 'json' : 'opaque';
  if (json) return 'json';
  if (mediaType !== undefined && PROTOBUF.has(mediaType)) return 'protobuf';
  throw new ProblemError(
    ProblemCode.unsupported_media_type,
    `${lane} take Content-Type application/json (the documented JSON form) or application/x-protobuf; got ${mediaType === undefined || mediaType === '' ? 'none' : mediaType}`,
  );
}
