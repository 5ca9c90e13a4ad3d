import { hash } from 'node:crypto';
import { trace, type Context, type Span, type SpanOptions, type Tracer } from '@opentelemetry/api';
import { RandomIdGenerator, type IdGenerator } from '@opentelemetry/sdk-trace';

/**
 * A 32-hex-digit trace id derived from a message's identity (`parts`, e.g. the stream and sequence
 * of an ingest message): the same message always roots the same trace, so a redelivery, a retry
 * or a replay of a message that arrived without trace context joins the trace of its first
 * delivery instead of starting an unrelated one.
 */
export function derivedTraceId(...parts: readonly (string | number)[]): string {
  const digest = hash('sha256', parts.map(String).join('|'), 'hex').slice(0, 32);
  // The all-zero id is invalid in W3C trace context; sha256 practically never yields it.
  return /^0+$/.test(digest) ? `${digest.slice(0, 31)}1` : digest;
}

/**
 * The SDK's id generator with one seam: a root span started through {@link startSpanInTrace}
 * takes the trace id it was given instead of a random one. Span ids stay random, so a retried
 * delivery gets a span of its own in the same trace. Everything else is `RandomIdGenerator`.
 */
export class DerivedTraceIdGenerator implements IdGenerator {
  private readonly random = new RandomIdGenerator();
  private next: string | undefined;

  generateTraceId(): string {
    const id = this.next;
    this.next = undefined;
    return id ?? this.random.generateTraceId();
  }

  generateSpanId(): string {
    return this.random.generateSpanId();
  }

  /** Runs `start` (which must start exactly one span, synchronously) with `traceId` as the next root trace id. */
  withNextTraceId<T>(traceId: string, start: () => T): T {
    this.next = traceId;
    try {
      return start();
    } finally {
      this.next = undefined;
    }
  }
}

/** The generator installed by `startTracing` (absent when tracing is off). */
let installed: DerivedTraceIdGenerator | undefined;

/** Installs `generator` as the one {@link startSpanInTrace} seeds (called by `startTracing`). */
export function installTraceIdGenerator(generator: DerivedTraceIdGenerator | undefined): void {
  installed = generator;
}

/**
 * Starts a span under `parent`; when `parent` holds no valid span context the span is a root
 * whose trace id is `rootTraceId()` (see {@link derivedTraceId}) rather than a random one. With
 * tracing off this is the API's no-op span.
 *
 * `rootTraceId` is called only when the span does root a trace with tracing on: every consumed
 * message passes one, and hashing its identity for a span that continues a carried trace, or for
 * the no-op span of a process with tracing off, was a sha256 per message for nothing.
 */
export function startSpanInTrace(tracer: Tracer, name: string, options: SpanOptions, parent: Context, rootTraceId: () => string): Span {
  const parentSpan = trace.getSpanContext(parent);
  if ((parentSpan !== undefined && trace.isSpanContextValid(parentSpan)) || installed === undefined) return tracer.startSpan(name, options, parent);
  const generator = installed;
  return generator.withNextTraceId(rootTraceId(), () => tracer.startSpan(name, options, parent));
}
