/** What a seq-guarded upsert did with one row. */
export const UpsertVerdict = {
  /** Written: the row was absent, or its stored seq was <= the incoming seq (equal = a replay rewriting its own row). */
  Applied: 'applied',
  /** Refused by the guard: the stored seq is higher (a delayed duplicate flush); the row is untouched. Expected, not an error. */
  Stale: 'stale',
} as const;
export type UpsertVerdict = (typeof UpsertVerdict)[keyof typeof UpsertVerdict];
