import { ROOT_CONTEXT } from '@opentelemetry/api';
import { SamplingDecision, TraceIdRatioBasedSampler } from '@opentelemetry/sdk-trace';
import { describe, expect, it } from 'vitest';
import { ingestRootIds } from './ingest-root-ids.js';

describe('ingestRootIds', () => {
  it('gives a 32-digit trace id and a 16-digit span id, the same for every delivery of a message', () => {
    const ids = ingestRootIds('AGENTS_INGEST', 42);
    expect(ids.traceId).toMatch(/^[0-9a-f]{32}$/);
    expect(ids.spanId).toMatch(/^[0-9a-f]{16}$/);
    expect(ingestRootIds('AGENTS_INGEST', 42)).toEqual(ids);
  });

  it('never gives two sequences of a stream the same trace id, low words or high words apart', () => {
    const seen = new Set<string>();
    for (let seq = 1; seq <= 50_000; seq += 1) seen.add(ingestRootIds('AGENTS_INGEST', seq).traceId);
    // Sequences that share their low 32 bits and differ above them.
    for (const high of [1, 2, 0x1f_ffff]) seen.add(ingestRootIds('AGENTS_INGEST', high * 0x1_0000_0000 + 7).traceId);
    expect(seen.size).toBe(50_000 + 3);
  });

  it('gives another stream other ids for the same sequence, and comes back to the first stream\'s', () => {
    const first = ingestRootIds('AGENTS_INGEST', 9);
    expect(ingestRootIds('AGENTS_INGEST_B', 9).traceId).not.toBe(first.traceId);
    expect(ingestRootIds('AGENTS_INGEST', 9)).toEqual(first);
  });

  it('spreads trace ids so that a ratio sampler keeps about its ratio of consecutive sequences', () => {
    const sampler = new TraceIdRatioBasedSampler(0.1);
    let sampled = 0;
    for (let seq = 1; seq <= 20_000; seq += 1) if (sampler.shouldSample(ROOT_CONTEXT, ingestRootIds('S', seq).traceId).decision === SamplingDecision.RECORD_AND_SAMPLED) sampled += 1;
    // 2,000 expected; the binomial standard deviation is about 42.
    expect(sampled).toBeGreaterThan(1_800);
    expect(sampled).toBeLessThan(2_200);
  });
});
