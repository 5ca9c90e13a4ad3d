/** The lease key of partition `p` in `AGENTS_LEASES` (zero-padded so keys sort by partition). */
export function leaseKey(partition: number): string {
  return `p${String(partition).padStart(4, '0')}`;
}
