// Layer 1: trace context travels in NATS headers as W3C traceparent/tracestate; re-parenting what a span publishes must replace exactly those two headers and keep every other header in order.
import { propagation, ROOT_CONTEXT, trace, TraceFlags } from '@opentelemetry/api';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { HeaderDoc } from '#core';
import { carriedParent, carriedSampledSpanId, carriesUnsampledParent, contextFromHeaders, withTraceContext, withTraceparent } from './trace-headers.js';

const PARENT = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01';

describe('trace headers', () => {
  beforeAll(() => {
    propagation.setGlobalPropagator(new W3CTraceContextPropagator());
  });
  afterAll(() => propagation.disable());

  it('reads the W3C parent a publisher put in the headers, whatever the header case', () => {
    const ctx = contextFromHeaders([{ name: 'Traceparent', value: PARENT }]);
    expect(trace.getSpanContext(ctx)).toMatchObject({ traceId: '0af7651916cd43dd8448eb211c80319c', spanId: 'b7ad6b7169203331', traceFlags: TraceFlags.SAMPLED, isRemote: true });
  });

  it('yields no span context for a message without (or with a malformed) traceparent', () => {
    expect(trace.getSpanContext(contextFromHeaders([{ name: 'Nats-Msg-Id', value: 'x' }]))).toBeUndefined();
    expect(trace.getSpanContext(contextFromHeaders([{ name: 'traceparent', value: 'garbage' }]))).toBeUndefined();
  });

  it('replaces traceparent and tracestate with the given span and keeps the other headers in order', () => {
    const headers: HeaderDoc[] = [
      { name: 'Agents-Event-Time', value: '1' },
      { name: 'traceparent', value: PARENT },
      { name: 'tracestate', value: 'vendor=old' },
      { name: 'Nats-Msg-Id', value: 'm' },
    ];
    const span = trace.wrapSpanContext({ traceId: '0af7651916cd43dd8448eb211c80319c', spanId: '00f067aa0ba902b7', traceFlags: TraceFlags.SAMPLED });
    const out = withTraceContext(headers, trace.setSpan(ROOT_CONTEXT, span));
    expect(out).toEqual([
      { name: 'Agents-Event-Time', value: '1' },
      { name: 'Nats-Msg-Id', value: 'm' },
      { name: 'traceparent', value: '00-0af7651916cd43dd8448eb211c80319c-00f067aa0ba902b7-01' },
    ]);
  });

  it('returns the headers untouched when there is no span to carry', () => {
    const headers: HeaderDoc[] = [{ name: 'traceparent', value: PARENT }];
    expect(withTraceContext(headers, ROOT_CONTEXT)).toBe(headers);
  });
});

describe('carriesUnsampledParent', () => {
  const header = (value: string, name = 'traceparent'): HeaderDoc[] => [{ name: 'Nats-Msg-Id', value: 'x' }, { name, value }];

  it('is true only for a valid traceparent whose sampled flag is off', () => {
    expect(carriesUnsampledParent(header('00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-00'))).toBe(true);
    expect(carriesUnsampledParent(header('00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-02'))).toBe(true);
    expect(carriesUnsampledParent(header('00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01'))).toBe(false);
    expect(carriesUnsampledParent(header('00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-00', 'Traceparent'))).toBe(true);
  });

  it('is false without a traceparent or with an invalid one (a consumer then roots or continues a trace as usual)', () => {
    expect(carriesUnsampledParent([])).toBe(false);
    expect(carriesUnsampledParent(header('00-00000000000000000000000000000000-b7ad6b7169203331-00'))).toBe(false);
    expect(carriesUnsampledParent(header('00-0af7651916cd43dd8448eb211c80319c-0000000000000000-00'))).toBe(false);
    expect(carriesUnsampledParent(header('garbage'))).toBe(false);
  });
});

describe('carriedSampledSpanId', () => {
  beforeAll(() => {
    propagation.setGlobalPropagator(new W3CTraceContextPropagator());
  });
  afterAll(() => propagation.disable());
  const header = (value: string, name = 'traceparent'): HeaderDoc[] => [{ name: 'Nats-Msg-Id', value: 'x' }, { name, value }];
  const parent = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-';

  it('names the span the propagator would extract as the parent when that parent is sampled', () => {
    for (const value of [`${parent}01`, `${parent}03`, `${parent}ff`, `01${parent.slice(2)}01-a-later-version`]) {
      expect(carriedSampledSpanId(header(value))).toBe(trace.getSpanContext(contextFromHeaders(header(value)))?.spanId);
      expect(carriedSampledSpanId(header(value))).toBe('b7ad6b7169203331');
    }
    expect(carriedSampledSpanId(header(`${parent}01`, 'Traceparent'))).toBe('b7ad6b7169203331');
  });

  it('is undefined for a sampled-out parent, whose span records nothing to parent anything', () => {
    for (const flags of ['00', '02', 'fe', '10']) expect(carriedSampledSpanId(header(`${parent}${flags}`))).toBeUndefined();
  });

  it('is undefined where the propagator extracts no parent, whatever the flag says', () => {
    for (const headers of [
      [],
      header('garbage'),
      header('00-00000000000000000000000000000000-b7ad6b7169203331-01'),
      header('00-0af7651916cd43dd8448eb211c80319c-0000000000000000-01'),
      header('00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-0g'),
      header('00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-1'),
      header('00-0Af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01'),
    ]) {
      expect(carriedSampledSpanId(headers)).toBeUndefined();
      expect(trace.getSpanContext(contextFromHeaders(headers))).toBeUndefined();
    }
  });
});

describe('carriedParent', () => {
  const header = (value: string): HeaderDoc[] => [{ name: 'traceparent', value }];
  // The W3C pattern and its versioning rules (ff forbidden, nothing after a version-00 value), as
  // an oracle for the positional reader.
  const W3C = /^([0-9a-f]{2})-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})(-.*)?$/;
  const oracle = (value: string): { spanId: string; sampled: boolean } | undefined => {
    const m = W3C.exec(value);
    if (m === null || m[1] === 'ff' || (m[1] === '00' && m[5] !== undefined) || /^0+$/.test(m[2]!) || /^0+$/.test(m[3]!)) return undefined;
    return { spanId: m[3]!, sampled: (Number.parseInt(m[4]!, 16) & 1) === 1 };
  };
  const valid = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01';

  it('reads the span id and the sampled bit of every flags value', () => {
    for (let flags = 0; flags < 256; flags += 1) {
      const value = `${valid.slice(0, 53)}${flags.toString(16).padStart(2, '0')}`;
      expect(carriedParent(header(value))).toEqual({ spanId: 'b7ad6b7169203331', sampled: (flags & 1) === 1 });
    }
  });

  it('accepts what W3C trace context accepts and nothing else, as the propagator\'s extract does', () => {
    propagation.setGlobalPropagator(new W3CTraceContextPropagator());
    const values = [
      valid,
      `${valid}-what-follows`,
      `01${valid.slice(2)}-what-follows`,
      `01${valid.slice(2)}x`,
      `fe${valid.slice(2)}`,
      `${valid}x`,
      valid.toUpperCase(),
      valid.slice(0, 54),
      valid.replace('-b7', '_b7'),
      valid.replace('0af7', '0ag7'),
      valid.replace('b7ad', 'b7aD'),
      `ff${valid.slice(2)}`,
      ` ${valid.slice(1)}`,
      '00-00000000000000000000000000000000-b7ad6b7169203331-01',
      '00-0af7651916cd43dd8448eb211c80319c-0000000000000000-01',
      '00-00000000000000000000000000000001-0000000000000001-00',
      '',
    ];
    try {
      for (const value of values) {
        expect(carriedParent(header(value)), value).toEqual(oracle(value));
        expect(carriedParent(header(value))?.spanId, value).toBe(trace.getSpanContext(contextFromHeaders(header(value)))?.spanId);
      }
    } finally {
      propagation.disable();
    }
  });
});

describe('withTraceparent', () => {
  it('replaces the trace context and keeps the other headers in order', () => {
    const headers: HeaderDoc[] = [
      { name: 'Nats-Msg-Id', value: 'x' },
      { name: 'Traceparent', value: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01' },
      { name: 'tracestate', value: 'old=1' },
      { name: 'Agents-Seq', value: '3' },
    ];
    const value = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-00';
    expect(withTraceparent(headers, value)).toEqual([{ name: 'Nats-Msg-Id', value: 'x' }, { name: 'Agents-Seq', value: '3' }, { name: 'traceparent', value }]);
    expect(withTraceparent(headers, value, 'vendor=2')).toEqual([
      { name: 'Nats-Msg-Id', value: 'x' },
      { name: 'Agents-Seq', value: '3' },
      { name: 'traceparent', value },
      { name: 'tracestate', value: 'vendor=2' },
    ]);
    expect(carriedParent(withTraceparent(headers, value))).toEqual({ spanId: '00f067aa0ba902b7', sampled: false });
  });
});
