import { describe, expect, it } from 'vitest';
import { agentFigures, quantile, type MetricsReading } from './agent-figures.js';
import { parsePrometheusText } from './prometheus-text.js';

const scrape = (atMs: number, text: string): MetricsReading => ({ atMs, targets: new Map([['http://activator/metrics', parsePrometheusText(text)]]) });

const at = (completed: number, fast: number, slow: number, errors: number): string => `
# HELP agents_activations_total x
# TYPE agents_activations_total counter
agents_activations_total{agent="refund",status="completed"} ${completed}
agents_activation_duration_seconds_bucket{agent="refund",status="completed",le="0.01"} ${fast}
agents_activation_duration_seconds_bucket{agent="refund",status="completed",le="0.1"} ${fast + slow}
agents_activation_duration_seconds_bucket{agent="refund",status="completed",le="+Inf"} ${fast + slow}
agents_error_records_total{agent="refund",reason="malformed_payload"} ${errors}
`;

describe('agent figures from two /metrics readings', () => {
  it('reports the increase over the window as throughput, latency quantiles and errors by reason', () => {
    const view = agentFigures(scrape(0, at(10, 10, 0, 1)), scrape(10_000, at(110, 60, 50, 4)), 300_000);
    expect(view.coveredMs).toBe(10_000);
    const refund = view.agents[0];
    expect(refund?.agent).toBe('refund');
    expect(refund?.activations).toBe(100);
    expect(refund?.perSecond).toBe(10);
    expect(refund?.p50Seconds).toBeCloseTo(0.01, 3);
    expect(refund?.p99Seconds).toBeGreaterThan(0.09);
    expect(refund?.errorsByReason).toEqual({ malformed_payload: 3 });
  });

  it('counts a counter that went down (a restarted service) from zero', () => {
    const view = agentFigures(scrape(0, at(500, 500, 0, 0)), scrape(60_000, at(6, 6, 0, 0)), 300_000);
    expect(view.agents[0]?.activations).toBe(6);
  });

  it('interpolates a quantile inside its bucket and has none without observations', () => {
    expect(quantile(0.5, [[1, 0], [2, 10], [Number.POSITIVE_INFINITY, 10]])).toBe(1.5);
    expect(quantile(0.5, [[1, 0], [Number.POSITIVE_INFINITY, 0]])).toBeUndefined();
  });
});

describe('the Prometheus text reader', () => {
  it('reads names, labels with escapes and special values, skipping comments and junk', () => {
    const samples = parsePrometheusText('# HELP a b\na_total{x="q\\"uote",le="+Inf"} 3\nnot a metric line at all\nb +Inf\n');
    expect(samples).toEqual([
      { name: 'a_total', labels: { x: 'q"uote', le: '+Inf' }, value: 3 },
      { name: 'b', labels: {}, value: Number.POSITIVE_INFINITY },
    ]);
  });
});
