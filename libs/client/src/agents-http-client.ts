/**
 * The HTTP client of ingress's API (`POST /v1/agents/:agent/{events,results,approvals}/:key`), for
 * callers without NATS. Every request carries the caller's credential (an API key or a JWT, sent
 * as `Authorization: Bearer`); the deployment decides what it may do by the credential's scopes
 * (docs/auth.md). A refusal is thrown as {@link HttpRefused} with the server's RFC 9457 problem
 * document.
 *
 * Keys: a text key travels as the percent-encoded path segment; a byte key as `Agents-Key` (base64)
 * with `_` in the path. Both reach the same actor as the NATS client's token for that key.
 *
 * Retries: a request that failed in transit may or may not have been stored. Give
 * `idempotencyKey` and repeat it: the deployment stores it once inside its duplicate window.
 */
import type { EntityKey } from './agents-client.js';

/** How to reach ingress over HTTP. */
export interface HttpClientOptions {
  /** The ingress base URL, e.g. `https://agents.example.com` (no trailing `/v1`). */
  readonly baseUrl: string;
  /** An API key or a JWT. Read it from the environment or a file; never hard-code it. */
  readonly credential: string;
  /** The fetch to use (default: the global one). */
  readonly fetch?: typeof fetch;
}

/** What ingress answers when it stored a message. */
export interface HttpAccepted {
  readonly agent: string;
  readonly key: string;
  readonly stream: string;
  readonly seq: number;
  readonly duplicate: boolean;
}

/** Options of an HTTP event post. */
export interface HttpPublishOptions {
  /** Stored once per credential, lane, agent and key inside the duplicate window (`Idempotency-Key`). */
  readonly idempotencyKey?: string;
  /** The client's own event time (an attribute; the server stamps the activation clock). */
  readonly eventTimeMs?: number;
  /** W3C trace context to continue. */
  readonly traceparent?: string;
}

/** The documented JSON form of a tool result. */
export interface HttpToolResult {
  readonly intentId: string;
  readonly status: 'ok' | 'error' | 'expired' | 'rejected';
  readonly payload?: unknown;
  readonly errorMessage?: string;
  readonly completedAtMs?: number;
}

/** A decision on an approval request. The approver is the credential's principal. */
export interface HttpDecision {
  readonly intentId: string;
  readonly approved: boolean;
  /** Leave out: the credential's principal is the approver. When given, it must be that principal (else 403). */
  readonly approver?: string;
  readonly reason?: string;
  readonly decidedAtMs?: number;
}

/** The RFC 9457 problem document of a refusal. */
export interface HttpProblem {
  readonly type: string;
  readonly title: string;
  readonly status: number;
  readonly detail: string;
  /** The short code to branch on (`unauthenticated`, `missing_scope`, `unknown_agent`, …). */
  readonly reason: string;
  readonly authReason?: string;
}

/** Ingress refused a request; `problem` says why and what to change. */
export class HttpRefused extends Error {
  override readonly name = 'HttpRefused';
  constructor(
    readonly status: number,
    readonly problem: HttpProblem,
  ) {
    super(`HTTP ${status} ${problem.reason}: ${problem.detail}`);
  }
}

/** Posts events, tool results and approval decisions to ingress with a credential. */
export class AgentsHttpClient {
  private readonly base: string;
  private readonly fetch: typeof fetch;

  constructor(private readonly options: HttpClientOptions) {
    if (options.credential.trim() === '') throw new Error('AgentsHttpClient needs a credential (an API key or a JWT)');
    this.base = options.baseUrl.replace(/\/+$/, '');
    this.fetch = options.fetch ?? globalThis.fetch;
  }

  /** Posts an event (JSON for an object, bytes as `application/octet-stream`). */
  publishEvent(agent: string, key: EntityKey, payload: Uint8Array | string | object, options: HttpPublishOptions = {}): Promise<HttpAccepted> {
    const json = !(payload instanceof Uint8Array);
    const body = payload instanceof Uint8Array ? payload : typeof payload === 'string' ? payload : JSON.stringify(payload);
    const headers: Record<string, string> = { 'content-type': json ? 'application/json' : 'application/octet-stream' };
    if (options.idempotencyKey !== undefined) headers['idempotency-key'] = options.idempotencyKey;
    if (options.eventTimeMs !== undefined) headers['agents-event-time'] = String(Math.floor(options.eventTimeMs));
    if (options.traceparent !== undefined) headers.traceparent = options.traceparent;
    return this.post('events', agent, key, headers, body);
  }

  /** Posts a tool result in its JSON form (the route must be enabled: `ingress.routes.results`). */
  publishResult(agent: string, key: EntityKey, result: HttpToolResult): Promise<HttpAccepted> {
    return this.post('results', agent, key, { 'content-type': 'application/json', 'idempotency-key': result.intentId }, JSON.stringify(result));
  }

  /**
   * Decides an approval request as the credential's principal (the route must be enabled:
   * `ingress.routes.approvals`). The first decision on an intent wins.
   */
  decide(agent: string, key: EntityKey, decision: HttpDecision): Promise<HttpAccepted> {
    return this.post('approvals', agent, key, { 'content-type': 'application/json' }, JSON.stringify(decision));
  }

  private async post(lane: string, agent: string, key: EntityKey, headers: Record<string, string>, body: Uint8Array | string): Promise<HttpAccepted> {
    const keyHeaders: Record<string, string> =
      typeof key === 'string' ? {} : { 'agents-key': Buffer.from(key).toString('base64'), 'agents-key-encoding': 'base64' };
    const segment = typeof key === 'string' ? encodeURIComponent(key) : '_';
    const response = await this.fetch(`${this.base}/v1/agents/${encodeURIComponent(agent)}/${lane}/${segment}`, {
      method: 'POST',
      headers: { ...headers, ...keyHeaders, authorization: `Bearer ${this.options.credential.trim()}` },
      body,
    });
    const text = await response.text();
    if (response.ok) return JSON.parse(text) as HttpAccepted;
    let problem: HttpProblem;
    try {
      problem = JSON.parse(text) as HttpProblem;
    } catch {
      problem = { type: 'about:blank', title: response.statusText, status: response.status, detail: text.slice(0, 200), reason: 'http_error' };
    }
    throw new HttpRefused(response.status, problem);
  }
}
