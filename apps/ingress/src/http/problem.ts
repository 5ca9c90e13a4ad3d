/**
 * Refusals of the HTTP edge as RFC 9457 problem details (`application/problem+json`). Each kind of
 * refusal has a stable `type` URI, an HTTP status and a title; the `detail` says what to change.
 * The `reason` member repeats the code (and, for ingest refusals, the error-record reason such as
 * `unknown_agent`), so scripts branch on one short string.
 *
 * A refusal is decided before anything is stored: a refused request leaves no trace in any stream,
 * and repeating it is refused the same way.
 */
import { HttpException } from '@nestjs/common';

/** The refusals of the HTTP edge, one triage line each; the strings are a compatibility contract. */
export const ProblemCode = {
  /** 401: no credential, or one that is malformed, unknown, expired or badly signed (`authReason` says which). */
  unauthenticated: 'unauthenticated',
  /** 503: the JWT key set could not be fetched; retry. */
  verifier_unavailable: 'verifier_unavailable',
  /** 403: the credential is valid but lacks the route's scope for this agent. */
  missing_scope: 'missing_scope',
  /** 403: an approval names an approver other than the credential's principal. */
  approver_mismatch: 'approver_mismatch',
  /** 403: a browser request from an origin not in `ingress.allowedOrigins`. */
  origin_refused: 'origin_refused',
  /** 404: the route (results or approvals over HTTP) is not enabled in `ingress.routes`. */
  route_disabled: 'route_disabled',
  /** 400: the agent segment of the path is not an agent name. */
  invalid_agent_name: 'invalid_agent_name',
  /** 400: the key in the path or the `Agents-Key` header cannot be read. */
  invalid_key: 'invalid_key',
  /** 415: a `Content-Type` the route does not take (or one a browser may send cross-origin). */
  unsupported_media_type: 'unsupported_media_type',
  /** 415: a `Content-Encoding` other than identity, gzip or deflate. */
  unsupported_content_encoding: 'unsupported_content_encoding',
  /** 400: a result or approval body that does not decode. */
  malformed_body: 'malformed_body',
  /** 4xx: the ingest rules refused the message (`reason` is the error-record reason: unknown_agent, payload_too_large, …). */
  ingest_refused: 'ingest_refused',
} as const;

/** One member of {@link ProblemCode}. */
export type ProblemCode = (typeof ProblemCode)[keyof typeof ProblemCode];

const META: Readonly<Record<ProblemCode, { readonly status: number; readonly title: string }>> = {
  unauthenticated: { status: 401, title: 'A valid credential is required' },
  verifier_unavailable: { status: 503, title: 'The credential cannot be verified right now' },
  missing_scope: { status: 403, title: 'The credential lacks the scope for this route' },
  approver_mismatch: { status: 403, title: 'The approver is the credential, not the body' },
  origin_refused: { status: 403, title: 'Cross-origin request refused' },
  route_disabled: { status: 404, title: 'This route is not enabled' },
  invalid_agent_name: { status: 400, title: 'Not an agent name' },
  invalid_key: { status: 400, title: 'The entity key cannot be read' },
  unsupported_media_type: { status: 415, title: 'Unsupported Content-Type' },
  unsupported_content_encoding: { status: 415, title: 'Unsupported Content-Encoding' },
  malformed_body: { status: 400, title: 'The body does not decode' },
  ingest_refused: { status: 400, title: 'The message was refused' },
};

/** The RFC 9457 document of a refusal, with the edge's extension members. */
export interface ProblemDocument {
  /** A URI naming the kind of problem: `urn:nats-agents:problem:<code>`. */
  readonly type: string;
  readonly title: string;
  readonly status: number;
  /** What was wrong and what to change; safe to log (never repeats a credential). */
  readonly detail: string;
  /** The code (or, for `ingest_refused`, the error-record reason). */
  readonly reason: string;
  /** For 401: the `#auth` refusal reason (missing_credential, unknown_api_key, expired_token, …). */
  readonly authReason?: string;
}

/** The `type` URI of a problem code. */
export function problemType(code: ProblemCode): string {
  return `urn:nats-agents:problem:${code}`;
}

/**
 * A refusal thrown inside the edge and written by the problem-details filter. Extends Nest's
 * `HttpException` so anything else that catches it still sees the right status.
 */
export class ProblemError extends HttpException {
  override readonly name = 'ProblemError';
  readonly document: ProblemDocument;

  constructor(
    code: ProblemCode,
    detail: string,
    extra: { readonly status?: number; readonly reason?: string; readonly authReason?: string } = {},
  ) {
    const meta = META[code];
    const document: ProblemDocument = {
      type: problemType(code),
      title: meta.title,
      status: extra.status ?? meta.status,
      detail,
      reason: extra.reason ?? code,
      ...(extra.authReason !== undefined ? { authReason: extra.authReason } : {}),
    };
    super(document, document.status);
    this.document = document;
  }
}
