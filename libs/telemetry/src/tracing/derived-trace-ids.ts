import { hash } from 'node:crypto';
import { ROOT_CONTEXT, trace, type Context, type Span, type SpanKind, type SpanOptions, type Tracer } from '@opentelemetry/api';
import { RandomIdGenerator, SamplingDecision, type IdGenerator, type Sampler } from '@opentelemetry/sdk-trace';
import type { RootIds } from './ingest-root-ids.js';

/**
 * A 32-hex-digit trace id derived from a message's identity (`parts`, e.g. the state key and inbox
 * sequence of an element): the same message always roots the same trace, so a redelivery, a retry
 * or a replay of a message that arrived without trace context joins the trace of its first
 * delivery instead of starting an unrelated one. A sha256 per call: for roots whose span records.
 * Ingress, which decides every message's root, derives its ids with `ingestRootIds` instead.
 */
export function derivedTraceId(...parts: readonly (string | number)[]): string {
  return nonZero(hash('sha256', parts.join('|'), 'hex').slice(0, 32));
}

/** `hex` unless it is all zeros (invalid in W3C trace context; sha256 practically never yields it). */
function nonZero(hex: string): string {
  // Compared with the all-zero id of its length (trace 32 digits, span 16), not tested with a
  // regular expression: this runs for every root ingress derives (decision 0086).
  return hex === ZERO_TRACE_ID || hex === ZERO_SPAN_ID ? `${hex.slice(0, -1)}1` : hex;
}

const ZERO_TRACE_ID = '0'.repeat(32);
const ZERO_SPAN_ID = '0'.repeat(16);

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

/** The sampler installed by `startTracing` (the tracer provider's own; absent when tracing is off). */
let rootSampler: Sampler | undefined;

/** Installs the process's sampler for {@link decideDerivedRoot} (called by `startTracing`). */
export function installRootSampler(sampler: Sampler | undefined): void {
  rootSampler = sampler;
}

/**
 * What the process's sampler decides for a span that would root the trace `ids` name (derived
 * from the message's identity, e.g. {@link ingestRootIds}), taken before any span is built:
 * sampled in, the caller starts the span with {@link startSpanInTrace} and `traceId`; sampled
 * out, nothing would record it, and `traceparent` is the W3C header the message's consequences
 * carry instead (the same trace id, `ids.spanId`, the sampled flag off), so parent-based samplers
 * downstream keep the decision. `undefined` with tracing off.
 *
 * Why: ingress roots a trace for every message published without trace context, and at a 10 %
 * ratio nine in ten of those spans were built (attributes, span id, context, propagator inject)
 * only to record nothing. Deterministic: the ids are derived (a sampled-out span is never
 * exported, so nothing needs its span id to differ per delivery), and the ratio samplers decide
 * by trace id, so a redelivery or replay carries the same header as the first delivery. A sampler
 * that records without sampling (`RECORD`) gets a real span.
 */
export function decideDerivedRoot(name: string, kind: SpanKind, ids: RootIds): DerivedRoot | undefined {
  const sampler = rootSampler;
  if (sampler === undefined) return undefined;
  const result = sampler.shouldSample(ROOT_CONTEXT, ids.traceId, name, kind, {}, []);
  if (result.decision !== SamplingDecision.NOT_RECORD) return { sampled: true, traceId: ids.traceId };
  const tracestate = result.traceState?.serialize();
  return { sampled: false, traceparent: `00-${ids.traceId}-${ids.spanId}-00`, ...(tracestate ? { tracestate } : {}) };
}

/** {@link decideDerivedRoot}'s answer. */
export type DerivedRoot =
  | { readonly sampled: true; readonly traceId: string }
  | { readonly sampled: false; readonly traceparent: string; readonly tracestate?: string };
