import { Inject, Injectable, Logger, type BeforeApplicationShutdown, type OnApplicationBootstrap } from '@nestjs/common';
import type { Msg, Subscription } from '@nats-io/transport-node';
import { context, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import { RUNTIME_CONFIG, type RuntimeConfig } from '#config';
import {
  decodeEraseRequest,
  encodeEraseResult,
  encodeMemoryError,
  ERASE_OP,
  MEMORY_STORE_QUEUE,
  MemoryErrorCode,
  MemoryProtocolError,
  type LongTermBackend,
} from '#longterm';
import type { Topology } from '#routing';
import { AgentsAttribute, contextFromHeaders, type MemoryStoreMetrics } from '#telemetry';
import { fromMsgHdrs, NatsService, TOPOLOGY } from '#transport';
import type { EntityEraser } from './erasure/entity-eraser.js';
import { MemoryRequestHandler } from './memory-request-handler.js';
import { ENTITY_ERASER, LONG_TERM_BACKEND, MEMORY_REQUEST_HANDLER, MEMORY_STORE_METRICS } from './memory-store.tokens.js';
import { RetentionSweeper } from './retention-sweeper.js';

const tracer = trace.getTracer('nats-agents/memory-store');

/** Requests handled at once per replica; beyond it a request is answered `unavailable` (retryable). */
const MAX_IN_FLIGHT = 256;

/**
 * The memory-store service: serves the long-term tier over NATS request/reply on
 * `<prefix>.memory.<op>` in the queue group `memory-store` (replicas share the load; each request
 * reaches one), and runs the background retention sweep. Owns the backend connection and closes
 * it on shutdown after in-flight requests are answered. On SIGTERM: stops taking requests,
 * answers those in flight, stops the sweep, closes the backend. On a crash mid-request the client
 * times out with `LongTermUnavailable` and retries: every op is safe to repeat.
 */
@Injectable()
export class MemoryStoreService implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger(MemoryStoreService.name);
  private subscription: Subscription | undefined;
  private eraseSubscription: Subscription | undefined;
  private sweeper: RetentionSweeper | undefined;
  private readonly inFlight = new Set<Promise<void>>();
  private ready = false;

  constructor(
    @Inject(NatsService) private readonly nats: NatsService,
    @Inject(RUNTIME_CONFIG) private readonly config: RuntimeConfig,
    @Inject(TOPOLOGY) private readonly topology: Topology,
    @Inject(LONG_TERM_BACKEND) private readonly backend: LongTermBackend | null,
    @Inject(MEMORY_REQUEST_HANDLER) private readonly handler: MemoryRequestHandler | null,
    @Inject(ENTITY_ERASER) private readonly eraser: EntityEraser,
    @Inject(MEMORY_STORE_METRICS) private readonly metrics: MemoryStoreMetrics,
  ) {}

  /** True once its backend is open and its subscriptions serve (also with the tier off), until shutdown starts. */
  get isReady(): boolean {
    return this.ready;
  }

  async onApplicationBootstrap(): Promise<void> {
    const { backend, handler } = this;
    this.eraseSubscription = this.nats.nc.subscribe(this.topology.admin(ERASE_OP), {
      queue: MEMORY_STORE_QUEUE,
      callback: (error, msg) => {
        if (error !== null) this.logger.warn(`erase subscription error: ${error.message}`);
        else this.track(this.erase(msg));
      },
    });
    if (backend === null || handler === null) {
      await this.nats.nc.flush();
      this.ready = true;
      this.logger.log('memory-store connected; the long-term tier is off (longterm.uri unset), nothing to serve');
      return;
    }
    this.subscription = this.nats.nc.subscribe(this.topology.memoryFilter, {
      queue: MEMORY_STORE_QUEUE,
      callback: (error, msg) => {
        if (error !== null) {
          this.logger.warn(`memory subscription error: ${error.message}`);
          return;
        }
        this.dispatch(handler, msg);
      },
    });
    this.sweeper = new RetentionSweeper(backend, {
      everyMs: this.config.longterm.sweepEveryMs,
      nowMs: () => Date.now(),
      report: (outcome) => {
        if ('error' in outcome) this.logger.warn(`retention sweep failed (retried next tick): ${outcome.error.message}`);
        else {
          this.metrics.swept.inc(outcome.swept);
          this.logger.log(`retention sweep deleted ${outcome.swept} expired rows`);
        }
      },
    });
    this.sweeper.start();
    await this.nats.nc.flush();
    this.ready = true;
    this.logger.log(`memory-store serving ${backend.kind} (${backend.target}) on ${this.topology.memoryFilter}, queue ${MEMORY_STORE_QUEUE}`);
  }

  async beforeApplicationShutdown(): Promise<void> {
    this.ready = false;
    for (const subscription of [this.subscription, this.eraseSubscription]) {
      if (subscription === undefined || subscription.isClosed()) continue;
      try {
        await subscription.drain();
      } catch (error) {
        this.logger.warn(`draining a subscription failed: ${(error as Error).message}`);
      }
    }
    await Promise.allSettled([...this.inFlight]);
    await this.sweeper?.stop();
    await this.backend?.close();
  }

  /**
   * Runs one erasure and answers it. Failures answer with a code and `retryable`; an erasure that
   * failed after its pause stays paused, and a repeat of the request completes it.
   */
  private async erase(msg: Msg): Promise<void> {
    let body: Uint8Array;
    try {
      const request = decodeEraseRequest(msg.data);
      body = encodeEraseResult(await this.eraser.erase(request));
    } catch (error) {
      const failure = error as Error & { retryable?: boolean; code?: MemoryErrorCode };
      const code = error instanceof MemoryProtocolError ? error.code : failure.retryable === true ? MemoryErrorCode.Unavailable : MemoryErrorCode.Internal;
      if (code !== MemoryErrorCode.BadRequest) this.logger.warn(`erasure failed: ${failure.message}`);
      body = encodeMemoryError({ code, message: failure.message, retryable: code !== MemoryErrorCode.BadRequest && code !== MemoryErrorCode.UnsupportedVersion });
    }
    if (!msg.respond(body)) this.logger.warn('erase: the request had no reply subject');
  }

  private track(work: Promise<void>): void {
    const tracked = work
      .catch((error: unknown) => this.logger.error(`erase: replying failed: ${(error as Error).message}`))
      .finally(() => this.inFlight.delete(tracked));
    this.inFlight.add(tracked);
  }

  private dispatch(handler: MemoryRequestHandler, msg: Msg): void {
    const op = msg.subject.slice(msg.subject.lastIndexOf('.') + 1);
    if (this.inFlight.size >= MAX_IN_FLIGHT) {
      msg.respond(encodeMemoryError({ code: MemoryErrorCode.Unavailable, message: `memory-store replica busy (${MAX_IN_FLIGHT} requests in flight)`, retryable: true }));
      return;
    }
    const started = performance.now();
    // A request that carries trace context (a caller inside a trace) gets a server span; others none.
    const parent = contextFromHeaders(fromMsgHdrs(msg.headers));
    const span = trace.getSpanContext(parent) === undefined ? undefined : tracer.startSpan(`memory ${op}`, { kind: SpanKind.SERVER, attributes: { [AgentsAttribute.MemoryOp]: op } }, parent);
    const work = context
      .with(span === undefined ? parent : trace.setSpan(parent, span), () => handler.handle(op, msg.data))
      .then(({ body, outcome }) => {
        this.metrics.requests.inc({ op: outcome.op, code: outcome.code ?? 'ok' });
        this.metrics.latency.observe({ op: outcome.op }, (performance.now() - started) / 1_000);
        if (outcome.code !== undefined) span?.setStatus({ code: SpanStatusCode.ERROR, message: outcome.code });
        if (outcome.code === MemoryErrorCode.Internal) this.logger.error(`memory ${outcome.op} failed: ${outcome.message}`);
        else if (outcome.code === MemoryErrorCode.Unavailable || outcome.code === MemoryErrorCode.DeadlineExceeded) this.logger.warn(`memory ${outcome.op}: ${outcome.message}`);
        if (!msg.respond(body)) this.logger.warn(`memory ${outcome.op}: the request had no reply subject`);
      })
      .catch((error: unknown) => this.logger.error(`memory ${op}: replying failed: ${(error as Error).message}`))
      .finally(() => {
        span?.end();
        this.inFlight.delete(work);
      });
    this.inFlight.add(work);
  }
}
