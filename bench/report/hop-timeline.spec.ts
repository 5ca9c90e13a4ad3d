import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { hopRows, roundTripHops, ROUND_TRIP_HOPS, tracedOps } from './hop-timeline.js';

// One round trip of each system, cut from a real `trace: true` log of the roundtrip-unloaded phase
// (payload lines dropped, acks and replies kept as they interleave).
const log = readFileSync(new URL('./hop-timeline.fixture.trace', import.meta.url), 'utf8');

describe('hop timeline of a traced round trip', () => {
  it('reads the subject-carrying protocol messages with their microsecond stamps and skips the rest', () => {
    const ops = tracedOps(log);
    expect(ops[0]).toEqual({ atMs: expect.closeTo(13_174_874.504, 3), client: 'bench-load-generator', way: 'in', op: 'HPUB', subject: 'agents.events.bench-tool.ru-0' });
    expect(ops.some((o) => o.op === 'UNSUB' || o.op === 'PING')).toBe(false);
  });

  it("follows the runtime's round trip hop by hop, each from the previous step", () => {
    const [trip, ...others] = roundTripHops(tracedOps(log), 'runtime', 'bench-tool');
    expect(others).toHaveLength(0);
    const expected = [0.051, 0.526, 0.083, 1.056, 0.287, 0.09, 0.597, 0.556, 0.288, 0.057, 0.612, 0.087, 0.623, 0.271, 0.045];
    expect(trip).toHaveLength(ROUND_TRIP_HOPS.length);
    trip!.forEach((ms, i) => expect(ms).toBeCloseTo(expected[i]!, 3));
  });

  it("lines the baseline's hops up with the runtime's, and sums each system's whole round trip", () => {
    const { rows, roundTrips } = hopRows(log, 'bench-tool');
    expect(roundTrips).toEqual({ runtime: 1, baseline: 1 });
    const byHop = new Map(rows.map((r) => [r.hop, r]));
    expect(byHop.get('activation: delivery → state write')?.baselineP50Ms).toBeCloseTo(0.249, 3);
    expect(byHop.get('forwarding service: result → inbox publish')?.baselineP50Ms).toBeCloseTo(0.355, 3);
    expect(byHop.get('whole round trip')?.runtimeP50Ms).toBeCloseTo(5.229, 3);
    expect(byHop.get('whole round trip')?.baselineP50Ms).toBeCloseTo(2.802, 3);
  });

  it("leaves out each system's warm-up round trips", () => {
    const { rows, roundTrips } = hopRows(log, 'bench-tool', 1);
    expect(roundTrips).toEqual({ runtime: 0, baseline: 0 });
    expect(rows.every((r) => r.runtimeP50Ms === undefined && r.baselineP50Ms === undefined)).toBe(true);
  });

  it('skips a round trip whose chain the trace cuts off', () => {
    const cut = log.split('\n').filter((line) => !line.includes('HPUB agents.output.')).join('\n');
    expect(roundTripHops(tracedOps(cut), 'runtime', 'bench-tool')).toHaveLength(0);
    expect(roundTripHops(tracedOps(cut), 'baseline', 'bench-tool')).toHaveLength(1);
  });
});
