import { context, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import { ensureError, type LongTermRecord, type LongTermStore } from '#core';
import { encodeKeyToken } from '#routing';
import { AgentsAttribute, type RuntimeMetrics, type TraceScopes } from '#telemetry';
import { activatorTracer } from './activator-tracer.js';

/**
 * The long-term store with each flush before a commit recorded as a `longterm.flush` span of the
 * running activation (found through the trace scope of the records' agent and entity key: one
 * flush writes one activation's records) and counted in `agents_longterm_upserts_total{agent, outcome}`. Every other
 * operation (and any the store grows later) passes through untouched. A failed flush is re-thrown:
 * the runtime fails the activation closed or holds the key, exactly as without tracing.
 */
export function tracedLongTermStore(inner: LongTermStore, metrics: RuntimeMetrics, scopes: TraceScopes): LongTermStore {
  const upsert = async (records: readonly LongTermRecord[]): Promise<void> => {
    const first = records[0];
    const parent = first === undefined ? undefined : scopes.get(`${first.agent}.${encodeKeyToken(first.entityKey)}`)?.context;
    const span = parent === undefined ? undefined : activatorTracer.startSpan('longterm.flush', { kind: SpanKind.CLIENT, attributes: { [AgentsAttribute.LongTermRecords]: records.length } }, parent);
    try {
      // Active for the synchronous call, when the memory-store client reads its request headers
      // (`requestHeaders`, once per operation before its first await): its span is this span's child.
      await (parent === undefined || span === undefined ? inner.upsert(records) : context.with(trace.setSpan(parent, span), () => inner.upsert(records)));
      count(metrics, records, 'ok');
    } catch (thrown) {
      count(metrics, records, 'failed');
      span?.setStatus({ code: SpanStatusCode.ERROR, message: ensureError(thrown).name });
      throw thrown;
    } finally {
      span?.end();
    }
  };
  return new Proxy(inner, {
    get(target, property) {
      if (property === 'upsert') return upsert;
      const value: unknown = Reflect.get(target, property, target);
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });
}

function count(metrics: RuntimeMetrics, records: readonly LongTermRecord[], outcome: 'ok' | 'failed'): void {
  const byAgent = new Map<string, number>();
  for (const record of records) byAgent.set(record.agent, (byAgent.get(record.agent) ?? 0) + 1);
  for (const [agent, n] of byAgent) metrics.longTermUpserts.inc({ agent, outcome }, n);
}
