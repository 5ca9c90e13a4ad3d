// Layer 1: metric names are a dashboard contract; each registry is independent, so tests and
// several services in one process never collide.
import { describe, expect, it } from 'vitest';
import { EffectorMetrics } from './effector-metrics.js';

describe('EffectorMetrics', () => {
  it('registers the effector counters and the tool latency histogram under stable names', async () => {
    const metrics = new EffectorMetrics({ defaultMetrics: false });
    metrics.results.inc({ status: 'ok' });
    metrics.deadLetters.inc({ reason: 'bad_signature' });
    metrics.toolLatency.observe({ tool: 'charge' }, 0.2);
    const text = await metrics.registry.metrics();
    for (const name of [
      'agents_effector_results_total{status="ok"} 1',
      'agents_effector_deduped_total 0',
      'agents_effector_in_flight_waits_total 0',
      'agents_effector_claims_lost_total 0',
      'agents_effector_dead_letters_total{reason="bad_signature"} 1',
      'agents_effector_unsigned_accepted_total 0',
      'agents_effector_tool_duration_seconds_count{tool="charge"} 1',
    ]) {
      expect(text).toContain(name);
    }
  });

  it('keeps registries apart', () => {
    expect(() => [new EffectorMetrics({ defaultMetrics: false }), new EffectorMetrics({ defaultMetrics: false })]).not.toThrow();
  });
});
