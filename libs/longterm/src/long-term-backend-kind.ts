/** The long-term backends, by URI scheme (`postgres://` is an alias of `postgresql://`). */
export const LongTermBackendKind = {
  /** `memory://`: one process's map; tests and single-process development. Lost on exit. */
  Memory: 'memory',
  /** `sqlite://<path>`: an embedded file (better-sqlite3 12); the default for local runs, one host only. */
  Sqlite: 'sqlite',
  /** `redis://…` / `rediss://…`: Lua compare-and-set per row; shared by every replica. */
  Redis: 'redis',
  /** `postgresql://…`: `INSERT … ON CONFLICT … WHERE excluded.seq >= seq`; shared by every replica. */
  Postgresql: 'postgresql',
  /** `bigtable://<project>/<instance>/<table>`: `CheckAndMutateRow` on the row's seq cell; shared by every replica. */
  Bigtable: 'bigtable',
  /** `firestore://<project>/<database>?collection=<name>`: create / update-if-unchanged preconditions per document; shared by every replica. */
  Firestore: 'firestore',
} as const;
export type LongTermBackendKind = (typeof LongTermBackendKind)[keyof typeof LongTermBackendKind];
