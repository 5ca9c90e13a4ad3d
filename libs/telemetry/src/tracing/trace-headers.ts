import { context as contextApi, propagation, ROOT_CONTEXT, type Context, type TextMapGetter, type TextMapSetter } from '@opentelemetry/api';
import { HeaderName, type HeaderDoc } from '#core';

const TRACE_HEADERS = new Set<string>([HeaderName.Traceparent, HeaderName.Tracestate]);

/** `traceparent` or `tracestate` in any case; the other headers are told apart by length, without lower-casing. */
function isTraceHeader(name: string): boolean {
  return (name.length === HeaderName.Traceparent.length || name.length === HeaderName.Tracestate.length) && TRACE_HEADERS.has(name.toLowerCase());
}

const getter: TextMapGetter<readonly HeaderDoc[]> = {
  keys: (carrier) => carrier.map((h) => h.name),
  get: (carrier, key) => {
    const lower = key.toLowerCase();
    return carrier.find((h) => h.name.toLowerCase() === lower)?.value;
  },
};

const setter: TextMapSetter<HeaderDoc[]> = {
  set: (carrier, key, value) => {
    carrier.push({ name: key, value });
  },
};

/**
 * The trace context a message carries (W3C `traceparent`/`tracestate` in its NATS headers), as a
 * context to start spans under. A message without one (or with an invalid one) yields the root
 * context. With tracing off the propagator is a no-op and so is this.
 */
export function contextFromHeaders(headers: readonly HeaderDoc[]): Context {
  return propagation.extract(ROOT_CONTEXT, headers, getter);
}

/**
 * `headers` with their trace context replaced by the span active in `ctx`, so whatever is
 * published with them continues the trace as a child of that span. Other headers keep their
 * order. When nothing can be injected (tracing off, no valid span) the headers are returned as
 * they were, carried trace context included.
 */
export function withTraceContext(headers: readonly HeaderDoc[], ctx: Context = contextApi.active()): readonly HeaderDoc[] {
  const injected: HeaderDoc[] = [];
  propagation.inject(ctx, injected, setter);
  if (!injected.some((h) => h.name === HeaderName.Traceparent)) return headers;
  return [...headers.filter((h) => !isTraceHeader(h.name)), ...injected];
}

/**
 * True when `headers` carry a valid W3C `traceparent` whose sampled flag is off. Under a
 * parent-based sampler nothing started under that parent records, so a consumer can process the
 * message without a span (its headers pass on as they came: the same trace id, still sampled
 * out downstream). Parses the one header itself: this runs for every message, and the
 * propagator's extract builds a context for nothing.
 */
export function carriesUnsampledParent(headers: readonly HeaderDoc[]): boolean {
  const parent = carriedParent(headers);
  return parent !== undefined && !parent.sampled;
}

/**
 * The span id a valid W3C `traceparent` in `headers` names when its sampled flag is on, or
 * `undefined` (no such header, an invalid one, or a sampled-out parent). It runs for every outbox
 * publish while any activation records, to find the recording activation that parents it; at a
 * 10 % ratio nine entries in ten carry a sampled-out parent, which the flag character rules out
 * before the value is read any further. A sampled-out parent never has a recording span to find.
 */
export function carriedSampledSpanId(headers: readonly HeaderDoc[]): string | undefined {
  const value = traceparentValue(headers);
  if (value === undefined || value.length < TRACEPARENT_VALUE_LENGTH || (HEX_VALUE[value.charCodeAt(54)]! & 1) !== 1) return undefined;
  return parseTraceparent(value)?.spanId;
}

/** What a valid W3C `traceparent` says about the span that sent a message. */
export interface CarriedParent {
  readonly spanId: string;
  readonly sampled: boolean;
}

/**
 * The span id and sampled flag of the first `traceparent` in `headers`, if it is a valid one
 * (non-zero ids): `undefined` exactly when the propagator's extract would give no parent, so the
 * consumer's span would root a trace. Runs for every message: the header's name is compared by
 * length first, so the other headers cost no lower-casing.
 */
export function carriedParent(headers: readonly HeaderDoc[]): CarriedParent | undefined {
  const value = traceparentValue(headers);
  return value === undefined ? undefined : parseTraceparent(value);
}

/** The value of the first `traceparent` header (any case); the other headers are told apart by length. */
function traceparentValue(headers: readonly HeaderDoc[]): string | undefined {
  for (const h of headers) {
    if (h.name.length !== TRACEPARENT_LENGTH || (h.name !== HeaderName.Traceparent && h.name.toLowerCase() !== HeaderName.Traceparent)) continue;
    return h.value;
  }
  return undefined;
}

/**
 * `version-traceid-spanid-flags` of W3C trace context (version 00 alone, a later version's first
 * four fields followed by `-`, never version ff), read by position: 55 characters at fixed offsets.
 * This runs once or twice per message; with a regular expression, this reader took 149 of the
 * 1,709 samples that tracing at 10 % added to the activator in one profile (decision 0086).
 * `undefined` for an invalid value or an all-zero trace or span id.
 */
function parseTraceparent(value: string): CarriedParent | undefined {
  if (value.length < TRACEPARENT_VALUE_LENGTH) return undefined;
  if (value.charCodeAt(2) !== DASH || value.charCodeAt(35) !== DASH || value.charCodeAt(52) !== DASH) return undefined;
  const high = HEX_VALUE[value.charCodeAt(0)]!;
  const low = HEX_VALUE[value.charCodeAt(1)]!;
  // Version ff is forbidden; version 00 is exactly 55 characters, a later one may add `-` fields.
  if ((high | low) < 0 || (high === 15 && low === 15)) return undefined;
  if (value.length > TRACEPARENT_VALUE_LENGTH && ((high | low) === 0 || value.charCodeAt(TRACEPARENT_VALUE_LENGTH) !== DASH)) return undefined;
  const traceId = hexRun(value, 3, 35);
  const spanId = hexRun(value, 36, 52);
  const flags = HEX_VALUE[value.charCodeAt(53)]! | HEX_VALUE[value.charCodeAt(54)]!;
  // -1 marks a character that is not a lower-case hex digit; 0 an all-zero id (invalid).
  if (traceId <= 0 || spanId <= 0 || flags < 0) return undefined;
  return { spanId: value.slice(36, 52), sampled: (HEX_VALUE[value.charCodeAt(54)]! & 1) === 1 };
}

/** -1 when a character in `[from, to)` is not a lower-case hex digit, 0 when all are `0`, else 1. */
function hexRun(value: string, from: number, to: number): number {
  let any = 0;
  for (let i = from; i < to; i += 1) {
    const digit = HEX_VALUE[value.charCodeAt(i)]!;
    if (digit < 0) return -1;
    any |= digit;
  }
  return any === 0 ? 0 : 1;
}

/**
 * `headers` with their trace context replaced by `traceparent` (and `tracestate` when given);
 * other headers keep their order. For a span decided before it was built
 * (`decideDerivedRoot`): what the propagator's inject would have written for it.
 */
export function withTraceparent(headers: readonly HeaderDoc[], traceparent: string, tracestate?: string): readonly HeaderDoc[] {
  const kept = headers.filter((h) => !isTraceHeader(h.name));
  kept.push({ name: HeaderName.Traceparent, value: traceparent });
  if (tracestate !== undefined) kept.push({ name: HeaderName.Tracestate, value: tracestate });
  return kept;
}

const TRACEPARENT_LENGTH = HeaderName.Traceparent.length;
/** `00-` + 32 + `-` + 16 + `-` + 2. */
const TRACEPARENT_VALUE_LENGTH = 55;
const DASH = 0x2d;
/**
 * The value of each lower-case hex digit by character code, -1 for every other code up to 0xffff
 * (`charCodeAt` of a position past the end gives NaN, which indexes nothing: undefined, and the
 * callers check the length first).
 */
const HEX_VALUE: Int8Array = (() => {
  const table = new Int8Array(0x10000).fill(-1);
  for (let c = 0x30; c <= 0x39; c += 1) table[c] = c - 0x30;
  for (let c = 0x61; c <= 0x66; c += 1) table[c] = c - 0x61 + 10;
  return table;
})();
