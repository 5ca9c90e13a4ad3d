import { Counter, type Registry } from 'prom-client';

/**
 * `agents_error_records_total{agent, reason}`: error records a service produced, counted once per
 * record when it is committed (activator) or published (ingress, effector). The same name on every
 * service, so `sum(agents_error_records_total)` over the cluster equals the records stored in the
 * errors stream (an identity to alert on; a crash between a publish and its count, or a redelivery
 * whose record the stream deduplicates, can make them differ by those few records).
 */
export function errorRecordCounter(registry: Registry): Counter<'agent' | 'reason'> {
  return new Counter({
    name: 'agents_error_records_total',
    help: 'Error records produced, by agent and reason (summed over services: the records in the errors stream)',
    labelNames: ['agent', 'reason'] as const,
    registers: [registry],
  });
}
