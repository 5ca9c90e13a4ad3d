/**
 * Batch application for backends without multi-row transactions (Bigtable, Firestore): rows of
 * different keys run concurrently, rows of one key strictly in batch order (so a batch that
 * writes a key twice ends at its last row, as everywhere else). Verdicts come back in batch order.
 * A failure rejects the whole call; rows already applied stay applied (each is idempotent).
 */
export async function applyPerKey<Row, Verdict>(rows: readonly Row[], keyOf: (row: Row) => string, apply: (row: Row) => Promise<Verdict>): Promise<Verdict[]> {
  const verdicts = new Array<Verdict>(rows.length);
  const byKey = new Map<string, number[]>();
  rows.forEach((row, index) => {
    const key = keyOf(row);
    const indexes = byKey.get(key);
    if (indexes === undefined) byKey.set(key, [index]);
    else indexes.push(index);
  });
  await Promise.all(
    [...byKey.values()].map(async (indexes) => {
      for (const index of indexes) verdicts[index] = await apply(rows[index] as Row);
    }),
  );
  return verdicts;
}
