import { DeliverPolicy, jetstream, jetstreamManager, type JetStreamClient, type PubAck } from '@nats-io/jetstream';
import { readFileSync } from 'node:fs';
import { connect, credsAuthenticator, headers as createHeaders, type NatsConnection, type Subscription } from '@nats-io/transport-node';
import {
  decodeErrorRecord,
  decodeToolIntent,
  encodeApproval,
  encodeInboxEnvelope,
  encodeToolResult,
  HeaderName,
  sealElement,
  type ApprovalDoc,
  type ClusterKeys,
  type ErrorRecordFields,
  type Seal,
  type ToolResultDoc,
} from '#core';
import { decodeEraseResponse, encodeEraseRequest, ERASE_OP, type ErasureReport } from '#longterm';
import { createTopology, decodeKeyToken, encodeKeyToken, InboxKind, keyFromText, UNNAMED_AGENT, type Topology } from '#routing';

/** How to reach a deployment. */
export interface ClientOptions {
  /** Comma-separated NATS URLs (default `nats://127.0.0.1:4222`). */
  readonly url?: string;
  /** The deployment's subject prefix (default `agents`). */
  readonly prefix?: string;
  /**
   * The deployment's partition count (default 16); only needed for direct inbox publishing, and
   * then it MUST equal the deployment's (`AGENTS_PARTITIONS`): with another value, direct events
   * land on a partition their key does not belong to and are never applied (the activator
   * terminates them, or no partition consumer sees them), with no error record.
   */
  readonly partitions?: number;
  /** Connection name shown in server monitoring. */
  readonly name?: string;
  /**
   * The NATS credential of this client, when the deployment's server requires one: a `.creds` file
   * (JWT and nkey seed, `NATS_CREDS` in the CLI), a user and password, or a token. Use a user whose
   * permissions allow what the client does (publishing on `<prefix>.events.>`, reading outputs):
   * see the least-privilege users in docs/helm.md.
   */
  readonly credentials?: { readonly credsFile: string } | { readonly user: string; readonly pass: string } | { readonly token: string };
  /**
   * Cluster keys to seal published results and approvals with (`Agents-Auth`, docs/decisions/0058).
   * Only for trusted runtime components that hold the keyring (the console): an activator with
   * `activator.verification: require` refuses unsealed answers. Everyone else answers over HTTP,
   * where ingress seals for the authenticated caller.
   */
  readonly clusterKeys?: ClusterKeys;
}

/** An entity key as text (UTF-8) or bytes. */
export type EntityKey = string | Uint8Array;

/** Options of an event publish. */
export interface PublishOptions {
  /**
   * The client's own event time in epoch ms, sent as `Agents-Event-Time`. It is an attribute only:
   * the runtime stamps the activation clock itself (the ingest or inbox stream timestamp), and
   * carries this value on as `Agents-Client-Time`.
   */
  readonly eventTimeMs?: number;
  /** Idempotency id: a republish with the same id inside the dedupe window is stored once. */
  readonly msgId?: string;
  /** W3C trace context to continue. */
  readonly traceparent?: string;
}

/** Options of {@link AgentsClient.erase}. */
export interface EraseOptions {
  /** Names the erasure in the audit record; repeat a failed request with the same id. Default: derived by the service. */
  readonly requestId?: string;
  /** Who asked (kept in the audit record). */
  readonly requestedBy?: string;
  /** Also erase the hot-key shards `key#0 … key#<shards-1>` of a sharded agent. */
  readonly shards?: number;
  /** How long to wait for the report (default 120 s: an erasure first waits for running activations). */
  readonly timeoutMs?: number;
}

/** An erasure the service refused or could not complete; `retryable` says whether repeating it may succeed. */
export class ErasureFailed extends Error {
  override readonly name = 'ErasureFailed';
  constructor(
    message: string,
    readonly code: string,
    readonly retryable: boolean,
  ) {
    super(message);
  }
}

/** One output of an agent, as published on `agents.output.<agent>.<key>`. */
export interface OutputMessage {
  readonly agent: string;
  readonly key: Uint8Array;
  readonly seq: number;
  readonly payload: Uint8Array;
  /** The payload decoded as UTF-8. */
  readonly text: string;
  readonly msgId: string;
}

/** What an awaited publish produced first: an output or an error record. */
export type ActivationAnswer =
  | { readonly kind: 'output'; readonly output: OutputMessage }
  | { readonly kind: 'error'; readonly error: ErrorRecordFields };

const utf8 = new TextDecoder();

/**
 * The public client: publish events, tool results and approvals to a deployment, and read what
 * its agents produce. Every publish goes to the ingest stream, so it is validated by ingress
 * and ordered per key with everything else — except {@link AgentsClient.publishDirect}, which
 * writes an event straight into the key's inbox partition and is validated by the activator.
 */
export class AgentsClient {
  readonly topology: Topology;
  readonly js: JetStreamClient;

  private constructor(
    readonly nc: NatsConnection,
    topology: Topology,
    private readonly keys?: ClusterKeys,
  ) {
    this.topology = topology;
    this.js = jetstream(nc);
  }

  /** Connects to a deployment. Close with {@link AgentsClient.close}. */
  static async connect(options: ClientOptions = {}): Promise<AgentsClient> {
    const credentials = options.credentials;
    const nc = await connect({
      servers: (options.url ?? 'nats://127.0.0.1:4222').split(',').map((s) => s.trim()),
      name: options.name ?? 'nats-agents-client',
      ...(credentials === undefined
        ? {}
        : 'credsFile' in credentials
          ? { authenticator: credsAuthenticator(new Uint8Array(readFileSync(credentials.credsFile))) }
          : credentials),
    });
    return new AgentsClient(nc, createTopology({ prefix: options.prefix ?? 'agents', partitions: options.partitions ?? 16 }), options.clusterKeys);
  }

  /** Wraps an existing connection (the caller keeps ownership of it). */
  static fromConnection(nc: NatsConnection, options: Omit<ClientOptions, 'url' | 'name'> = {}): AgentsClient {
    return new AgentsClient(nc, createTopology({ prefix: options.prefix ?? 'agents', partitions: options.partitions ?? 16 }), options.clusterKeys);
  }

  /** Publishes an event for `key` to `agent`; resolves when the ingest stream stored it. */
  publishEvent(agent: string, key: EntityKey, payload: Uint8Array | string | object, options: PublishOptions = {}): Promise<PubAck> {
    return this.publishTo(this.topology.events(agent, encodeKeyToken(toKey(key))), toBody(payload), options);
  }

  /**
   * Publishes an event straight into the key's inbox partition, skipping the ingress hop (one
   * stream write and one consumer less per event). The activator applies the same rules ingress
   * would (known agent, key, size, the agent's `validateEvent`) and answers a refusal with the same
   * error record (`unknown_agent`, `key_invalid`, `payload_too_large`, `malformed_input`); a refused
   * event never reaches the agent and never holds the key. Resolves when the inbox stream stored it.
   *
   * Ordering: direct events of a key are ordered with each other (one lane), but NOT with the
   * key's events published through ingress, which reach the lane later. Do not mix both paths for
   * one key when order matters. Hot-key sharding (`shards`) is applied by ingress only: publish to
   * the shard key yourself (`shardKey`) for a sharded agent.
   *
   * Redelivery: with `msgId`, a republish inside the inbox's duplicate window is stored once;
   * without it every call is a new event.
   *
   * @throws {RoutingError} when the agent name or key cannot be addressed at all (an empty key, an
   * invalid agent name): such an event cannot be put into any lane.
   * @example
   * ```ts
   * const client = await AgentsClient.connect({ partitions: 16 }); // the deployment's P
   * await client.publishDirect('fraud-triage', 'user-1', { amount: 420 }, { msgId: 'txn-991' });
   * ```
   */
  publishDirect(agent: string, key: EntityKey, payload: Uint8Array | string | object, options: PublishOptions = {}): Promise<PubAck> {
    const entityKey = toKey(key);
    const token = encodeKeyToken(entityKey);
    const subject = this.topology.inbox(this.topology.partitionOf(token), agent, token, InboxKind.Event);
    const eventTimeMs = Math.floor(options.eventTimeMs ?? Date.now());
    const envelope = encodeInboxEnvelope({ entityKey, eventTimeMs, payload: { kind: 'event', event: toBody(payload) } });
    const h = createHeaders();
    h.set(HeaderName.Direct, '1');
    h.set(HeaderName.EventTime, String(eventTimeMs));
    if (options.traceparent !== undefined) h.set(HeaderName.Traceparent, options.traceparent);
    return this.js.publish(subject, envelope, { headers: h, ...(options.msgId !== undefined ? { msgID: options.msgId } : {}) });
  }

  /** Publishes a tool result for `key` (normally the effector does this). */
  publishResult(agent: string, key: EntityKey, result: ToolResultDoc, options: PublishOptions = {}): Promise<PubAck> {
    const entityKey = toKey(key);
    const body = encodeToolResult(result);
    const seal = this.seal('result', agent, entityKey, body);
    return this.publishTo(this.topology.results(agent, encodeKeyToken(entityKey)), body, { msgId: seal?.msgId ?? result.intentId, ...options }, seal?.header);
  }

  /**
   * Publishes a human decision on an approval intent. The first decision wins; later ones are
   * orphans. Without `options.traceparent` the decision continues the trace of the request it
   * answers (see {@link AgentsClient.approvalRequestTrace}), so the resumed activation shows up
   * under the activation that asked; when that cannot be found the decision starts its own trace.
   * A repeated decision with the same content is a new message (the first decision still wins).
   */
  async publishApproval(agent: string, key: EntityKey, approval: ApprovalDoc, options: PublishOptions = {}): Promise<PubAck> {
    const traceparent = options.traceparent ?? (await this.approvalRequestTrace(agent, key, approval.intentId));
    const entityKey = toKey(key);
    const body = encodeApproval(approval);
    const seal = this.seal('approval', agent, entityKey, body);
    return this.publishTo(this.topology.approvals(agent, encodeKeyToken(entityKey)), body, { ...options, ...(traceparent !== undefined ? { traceparent } : {}) }, seal?.header);
  }

  /**
   * The `traceparent` of approval request `intentId`, when it is the key's latest approval
   * request in the intents stream (one direct read); undefined when it is not, carries no trace
   * context, or cannot be read within a second (a client without read rights on the intents
   * stream, an erased key). Never throws: tracing must not stand in the way of a decision.
   */
  async approvalRequestTrace(agent: string, key: EntityKey, intentId: string): Promise<string | undefined> {
    try {
      const jsm = await jetstreamManager(this.nc, { timeout: 1_000, checkAPI: false });
      const stored = await jsm.streams.getMessage(this.topology.streams.intents.name, { last_by_subj: this.topology.approvalRequests(agent, encodeKeyToken(toKey(key))) });
      if (stored === null || decodeToolIntent(stored.data).intentId !== intentId) return undefined;
      return stored.header?.get(HeaderName.Traceparent) || undefined;
    } catch {
      return undefined;
    }
  }

  /**
   * Publishes an event and resolves with the first output or error record the key produces
   * afterwards (subscribed before publishing, so nothing is missed).
   */
  async publishAndWait(agent: string, key: EntityKey, payload: Uint8Array | string | object, options: PublishOptions & { timeoutMs?: number } = {}): Promise<ActivationAnswer> {
    const entityKey = toKey(key);
    const token = encodeKeyToken(entityKey);
    const outputs = this.nc.subscribe(this.topology.output(agent, token));
    const errors = this.nc.subscribe(this.topology.errorsFilter(agent));
    const unnamed = this.nc.subscribe(this.topology.errorsFilter(UNNAMED_AGENT));
    try {
      await this.nc.flush();
      const answer = firstAnswer(outputs, errors, unnamed, entityKey, agent, options.timeoutMs ?? 30_000);
      await this.publishEvent(agent, entityKey, payload, options);
      return await answer;
    } finally {
      outputs.unsubscribe();
      errors.unsubscribe();
      unnamed.unsubscribe();
    }
  }

  /**
   * Reads outputs from the output stream (history included), in stream order, as an async
   * iterator; `agent`/`key` narrow the subject filter. Ends when `signal` aborts.
   */
  async *outputs(filter: { agent?: string; key?: EntityKey; fromStart?: boolean; signal?: AbortSignal } = {}): AsyncGenerator<OutputMessage> {
    const subject = this.topology.outputFilter(filter.agent, filter.key === undefined ? undefined : encodeKeyToken(toKey(filter.key)));
    const consumer = await this.js.consumers.get(this.topology.streams.output.name, {
      filter_subjects: subject,
      deliver_policy: filter.fromStart === false ? DeliverPolicy.New : DeliverPolicy.All,
    });
    const messages = await consumer.consume();
    if (filter.signal?.aborted) {
      await messages.close();
      return;
    }
    filter.signal?.addEventListener('abort', () => void messages.close(), { once: true });
    for await (const msg of messages) {
      yield toOutput(msg.subject, msg.data, msg.headers?.get(HeaderName.Seq), msg.headers?.get('Nats-Msg-Id'));
    }
  }

  /**
   * Erases one entity everywhere the deployment keeps it — actor state of every agent, timers,
   * pending intents and effector records, its messages in every stream, long-term rows — and
   * resolves with the report (counts, never content) once the audit record is written. Served by
   * the memory-store service. Safe to repeat: a timed-out or failed erasure is completed by a
   * repeat with the same `requestId`, and the entity stays paused until then.
   *
   * @throws {ErasureFailed} with `retryable` when the service failed, or did not answer in time.
   */
  async erase(key: EntityKey, options: EraseOptions = {}): Promise<ErasureReport> {
    const request = encodeEraseRequest({
      entityKey: toKey(key),
      ...(options.requestId !== undefined ? { requestId: options.requestId } : {}),
      ...(options.requestedBy !== undefined ? { requestedBy: options.requestedBy } : {}),
      ...(options.shards !== undefined ? { shards: options.shards } : {}),
    });
    let reply;
    try {
      reply = await this.nc.request(this.topology.admin(ERASE_OP), request, { timeout: options.timeoutMs ?? 120_000 });
    } catch (error) {
      throw new ErasureFailed(`no erasure answer (is a memory-store service running?): ${(error as Error).message}`, 'unavailable', true);
    }
    const response = decodeEraseResponse(reply.data);
    if (!response.ok) throw new ErasureFailed(response.error.message, response.error.code, response.error.retryable);
    return response.result;
  }

  /** Drains and closes the connection. */
  async close(): Promise<void> {
    await this.nc.drain();
  }

  /** The seal of an answer with the client's active cluster key; none without one. */
  private seal(kind: 'result' | 'approval', agent: string, entityKey: Uint8Array, body: Uint8Array): Seal | undefined {
    return this.keys === undefined ? undefined : sealElement(this.keys, { kind, agent, entityKey, payload: body });
  }

  private publishTo(subject: string, body: Uint8Array, options: PublishOptions, auth?: string): Promise<PubAck> {
    const h = createHeaders();
    if (auth !== undefined) h.set(HeaderName.Auth, auth);
    if (options.eventTimeMs !== undefined) h.set(HeaderName.EventTime, String(Math.floor(options.eventTimeMs)));
    if (options.traceparent !== undefined) h.set(HeaderName.Traceparent, options.traceparent);
    return this.js.publish(subject, body, { headers: h, ...(options.msgId !== undefined ? { msgID: options.msgId } : {}) });
  }
}

function toKey(key: EntityKey): Uint8Array {
  return typeof key === 'string' ? keyFromText(key) : key;
}

/** Event bytes: as given, UTF-8 of a string, or JSON of an object. */
function toBody(payload: Uint8Array | string | object): Uint8Array {
  return payload instanceof Uint8Array ? payload : new TextEncoder().encode(typeof payload === 'string' ? payload : JSON.stringify(payload));
}

function toOutput(subject: string, payload: Uint8Array, seq: string | undefined, msgId: string | undefined): OutputMessage {
  const tokens = subject.split('.');
  const token = tokens[tokens.length - 1] ?? '';
  return {
    agent: tokens[tokens.length - 2] ?? '',
    key: decodeKeyToken(token),
    seq: Number(seq ?? -1),
    payload,
    text: utf8.decode(payload),
    msgId: msgId ?? '',
  };
}

async function firstAnswer(outputs: Subscription, errors: Subscription, unnamed: Subscription, key: Uint8Array, agent: string, timeoutMs: number): Promise<ActivationAnswer> {
  const sameKey = (record: ErrorRecordFields): boolean => Buffer.compare(Buffer.from(record.entityKey), Buffer.from(key)) === 0 || record.entityKey.length === 0;
  return new Promise<ActivationAnswer>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no output or error for ${agent} key ${JSON.stringify(utf8.decode(key))} within ${timeoutMs} ms`)), timeoutMs);
    const settle = (answer: ActivationAnswer): void => {
      clearTimeout(timer);
      resolve(answer);
    };
    void (async () => {
      for await (const msg of outputs) {
        settle({ kind: 'output', output: toOutput(msg.subject, msg.data, msg.headers?.get(HeaderName.Seq), msg.headers?.get('Nats-Msg-Id')) });
        return;
      }
    })();
    for (const sub of [errors, unnamed]) {
      void (async () => {
        for await (const msg of sub) {
          const record = decodeErrorRecord(msg.data);
          if (sameKey(record)) {
            settle({ kind: 'error', error: record });
            return;
          }
        }
      })();
    }
  });
}
