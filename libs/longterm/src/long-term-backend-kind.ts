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
} as const;
export type LongTermBackendKind = (typeof LongTermBackendKind)[keyof typeof LongTermBackendKind];
