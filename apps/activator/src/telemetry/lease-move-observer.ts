import type { RuntimeMetrics } from '#telemetry';
import type { OwnershipObserver, ReleaseReason } from '../ownership-manager.js';

/**
 * Counts partition leases taken and given up (`agents_lease_moves_total{direction, reason}`) and
 * keeps `agents_owned_partitions` current. A steady cluster moves nothing; a rising `lost` or
 * `reset` count means leases expire under this activator (pauses, an overloaded or partitioned
 * NATS) — see docs/operations.md.
 */
export function leaseMoveObserver(metrics: RuntimeMetrics): OwnershipObserver {
  let owned = 0;
  return {
    acquired(): void {
      owned += 1;
      metrics.leaseMoves.inc({ direction: 'acquired', reason: 'assigned' });
      metrics.ownedPartitions.set(owned);
    },
    released(_partition: number, reason: ReleaseReason): void {
      owned = Math.max(0, owned - 1);
      metrics.leaseMoves.inc({ direction: 'released', reason });
      metrics.ownedPartitions.set(owned);
    },
  };
}
