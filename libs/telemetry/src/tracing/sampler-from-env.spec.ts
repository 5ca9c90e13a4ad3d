// Layer 1: the process's sampler is the one the standard OTEL_TRACES_SAMPLER variables name, with the SDK's defaults for what is unset or out of range.
import { ROOT_CONTEXT, SpanKind } from '@opentelemetry/api';
import { AlwaysOffSampler, AlwaysOnSampler, ParentBasedSampler, SamplingDecision, TraceIdRatioBasedSampler } from '@opentelemetry/sdk-trace';
import { describe, expect, it } from 'vitest';
import { samplerFromEnv } from './sampler-from-env.js';

const TRACE_ID = '4bf92f3577b34da6a3ce929d0e0e4736';

describe('samplerFromEnv', () => {
  it('defaults to parentbased_always_on, like the SDK', () => {
    const sampler = samplerFromEnv({});
    expect(sampler).toBeInstanceOf(ParentBasedSampler);
    expect(sampler.toString()).toContain('AlwaysOnSampler');
  });

  it.each([
    ['always_on', AlwaysOnSampler],
    ['always_off', AlwaysOffSampler],
    ['traceidratio', TraceIdRatioBasedSampler],
    ['parentbased_always_off', ParentBasedSampler],
    ['parentbased_traceidratio', ParentBasedSampler],
    [' ParentBased_TraceIdRatio ', ParentBasedSampler],
  ] as const)('builds %s', (name, type) => {
    expect(samplerFromEnv({ OTEL_TRACES_SAMPLER: name, OTEL_TRACES_SAMPLER_ARG: '0.25' })).toBeInstanceOf(type);
  });

  it('reads the ratio, and samples everything for a blank or out-of-range one', () => {
    const decide = (arg: string | undefined): SamplingDecision =>
      samplerFromEnv({ OTEL_TRACES_SAMPLER: 'traceidratio', ...(arg === undefined ? {} : { OTEL_TRACES_SAMPLER_ARG: arg }) }).shouldSample(ROOT_CONTEXT, TRACE_ID, 'x', SpanKind.INTERNAL, {}, []).decision;
    expect(decide('0')).toBe(SamplingDecision.NOT_RECORD);
    expect(decide(undefined)).toBe(SamplingDecision.RECORD_AND_SAMPLED);
    expect(decide('7')).toBe(SamplingDecision.RECORD_AND_SAMPLED);
    expect(decide('many')).toBe(SamplingDecision.RECORD_AND_SAMPLED);
  });

  it('falls back to parentbased_always_on for an unknown name', () => {
    expect(samplerFromEnv({ OTEL_TRACES_SAMPLER: 'jaeger_remote' })).toBeInstanceOf(ParentBasedSampler);
  });
});
