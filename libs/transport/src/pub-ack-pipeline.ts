import { JetStreamApiError, type PubAck } from '@nats-io/jetstream';
import { createInbox, type Msg, type MsgHdrs, type NatsConnection, type Subscription } from '@nats-io/transport-node';

/** A request whose reply did not arrive in time: a publish may or may not be stored; a read changed nothing. */
export class PubAckTimeout extends Error {
  override readonly name = 'PubAckTimeout';
}

/** No stream listens on the subject (the server answered 503): nothing was stored. */
export class PubAckNoResponders extends Error {
  override readonly name = 'PubAckNoResponders';
}

/** The pipeline stopped (or the connection closed) before the acknowledgement arrived: outcome unknown. */
export class PubAckAbandoned extends Error {
  override readonly name = 'PubAckAbandoned';
}

/** How long a publish waits for its acknowledgement, and how often waits are checked. */
export interface PubAckPipelineOptions {
  readonly timeoutMs: number;
  /** Monotonic milliseconds (injected so a test can drive time). */
  readonly monotonicMs: () => number;
}

/**
 * One open request. Settling it drops its callbacks, so whatever still points at the waiter holds
 * an empty shell, not the awaiting activation.
 *
 * Why: a replaced table of `waiters` keeps its entries until the next full collection, and a
 * waiter's `resolve` reaches the awaiting activation's whole object graph (SlotMap in libs/core says
 * more; docs/decisions/0071-settled-entries-hold-nothing.md). Nothing here survives a crash; a
 * redelivery starts a new request with a new waiter.
 */
class Waiter<T> {
  constructor(
    private read: ((reply: Msg) => T) | undefined,
    private onValue: ((value: T) => void) | undefined,
    private onError: ((error: Error) => void) | undefined,
    readonly deadline: number,
  ) {}

  /** Settles with what `read` makes of `reply`, or with what it throws (the first settlement wins; later ones do nothing). */
  answer(reply: Msg): void {
    const read = this.read;
    const onValue = this.onValue;
    const onError = this.onError;
    this.release();
    if (read === undefined) return;
    let value: T;
    try {
      value = read(reply);
    } catch (error) {
      onError?.(error as Error);
      return;
    }
    onValue?.(value);
  }

  /** Settles with `error` (the first settlement wins; later ones do nothing). */
  reject(error: Error): void {
    const onError = this.onError;
    this.release();
    onError?.(error);
  }

  private release(): void {
    this.read = undefined;
    this.onValue = undefined;
    this.onError = undefined;
  }
}

const decoder = new TextDecoder();

/**
 * JetStream publishes with acknowledgements, pipelined over one reply subscription: each publish
 * is a core `PUB` with a reply subject `<inbox>.<n>`, and the stream's `PubAck` (or API error) is
 * matched back by `n`. It is what `js.publish` does, without the client's per-request machinery:
 * no timer per request (one sweep checks every deadline), no request object, no promise rejected
 * with a freshly built `RequestError` after each success, no `TextDecoder` per reply. On the hot
 * path every activation makes two such publishes (the state write and the output), every forward
 * one (docs/decisions/0065-pipelined-publish-acknowledgements.md).
 *
 * The semantics are the client's: a stream error answers with the same `JetStreamApiError` (so
 * `err_code` 10071, wrong last sequence, still means a revision conflict), a missing stream is
 * {@link PubAckNoResponders}, and no answer within `timeoutMs` is {@link PubAckTimeout}: the
 * publish may or may not be stored, which callers already treat as ambiguous (re-read before
 * deciding; republish with the same `Nats-Msg-Id`, deduplicated by the stream). A reply arriving
 * after its deadline is dropped. On a reconnect, replies in flight may be lost; their waits time
 * out. Nothing is retried here. The same subscription carries other one-reply requests
 * ({@link PubAckPipeline.request}): the hot path's direct gets of cold actors' state
 * (`PipelinedKvReads`, decision 0072).
 */
export class PubAckPipeline {
  private readonly prefix: string;
  private readonly waiters = new Map<number, Waiter<unknown>>();
  private readonly subscription: Subscription;
  private readonly sweeper: NodeJS.Timeout;
  private next = 0;
  private closed = false;

  constructor(
    private readonly nc: NatsConnection,
    private readonly options: PubAckPipelineOptions,
  ) {
    this.prefix = `${createInbox()}.`;
    this.subscription = nc.subscribe(`${this.prefix}*`, { callback: (error, msg) => (error === null ? this.onReply(msg) : undefined) });
    // Waits expire in publish order (one timeout for all), so a sweep stops at the first live one.
    this.sweeper = setInterval(() => this.sweep(), Math.max(10, Math.min(1_000, Math.floor(options.timeoutMs / 4))));
    this.sweeper.unref();
  }

  /** Waits now open (telemetry and tests). */
  get inFlight(): number {
    return this.waiters.size;
  }

  /**
   * Publishes `payload` on `subject` with `headers` (which carry `Nats-Msg-Id` and any
   * `Nats-Expected-*` condition) and resolves with the stream's acknowledgement.
   */
  publish(subject: string, payload: Uint8Array, headers: MsgHdrs | undefined): Promise<PubAck> {
    return this.request(subject, payload, headers, readPubAck);
  }

  /**
   * Sends any request that one reply answers (a JetStream API call such as a direct get) over the
   * same reply subscription, and resolves with what `read` makes of the reply, or rejects with
   * what it throws. No answer within `timeoutMs` is {@link PubAckTimeout}; nothing is retried.
   */
  request<T>(subject: string, payload: Uint8Array, headers: MsgHdrs | undefined, read: (reply: Msg) => T): Promise<T> {
    if (this.closed) return Promise.reject(new PubAckAbandoned('the publish pipeline is closed'));
    const id = (this.next = (this.next + 1) % Number.MAX_SAFE_INTEGER);
    return new Promise<T>((resolve, reject) => {
      try {
        this.nc.publish(subject, payload, headers === undefined ? { reply: this.prefix + id } : { reply: this.prefix + id, headers });
      } catch (error) {
        reject(error as Error);
        return;
      }
      this.waiters.set(id, new Waiter<T>(read, resolve, reject, this.options.monotonicMs() + this.options.timeoutMs) as Waiter<unknown>);
    });
  }

  /** Stops: every open wait fails with {@link PubAckAbandoned} (outcome unknown). Idempotent. */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    clearInterval(this.sweeper);
    this.subscription.unsubscribe();
    const open = [...this.waiters.values()];
    this.waiters.clear();
    for (const waiter of open) waiter.reject(new PubAckAbandoned('the publish pipeline closed before the acknowledgement arrived'));
  }

  private onReply(msg: Msg): void {
    const id = Number(msg.subject.slice(this.prefix.length));
    const waiter = this.waiters.get(id);
    if (waiter === undefined) return;
    this.waiters.delete(id);
    waiter.answer(msg);
  }

  private sweep(): void {
    const now = this.options.monotonicMs();
    for (const [id, waiter] of this.waiters) {
      if (waiter.deadline > now) break;
      this.waiters.delete(id);
      waiter.reject(new PubAckTimeout(`no reply within ${this.options.timeoutMs} ms`));
    }
  }
}

/**
 * A stream's answer to a publish, as `js.publish` reads it: a stream error is the client's
 * `JetStreamApiError` (err_code 10071, wrong last sequence, is a revision conflict), a 503 is
 * {@link PubAckNoResponders}.
 *
 * @throws {Error} when the reply is an error or unreadable.
 */
function readPubAck(msg: Msg): PubAck {
  const headers = msg.headers;
  if (headers !== undefined && headers.hasError) {
    throw headers.code === 503 ? new PubAckNoResponders(`no stream answered (${headers.code} ${headers.description})`) : new Error(`publish refused: ${headers.code} ${headers.description}`);
  }
  let reply: (PubAck & { readonly error?: undefined }) | { readonly error: ConstructorParameters<typeof JetStreamApiError>[0] };
  try {
    reply = JSON.parse(decoder.decode(msg.data)) as typeof reply;
  } catch (error) {
    throw new Error(`unreadable publish acknowledgement: ${(error as Error).message}`);
  }
  if (reply.error !== undefined) throw new JetStreamApiError(reply.error);
  if (typeof reply.stream !== 'string' || reply.stream === '' || typeof reply.seq !== 'number') throw new Error('invalid publish acknowledgement');
  // The client's PubAck always names `duplicate`; the server omits it when false.
  (reply as { duplicate: boolean }).duplicate = reply.duplicate === true;
  return reply;
}
