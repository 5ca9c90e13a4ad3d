/**
 * Backend-to-backend copy: every row of one backend into another, record bytes verbatim (every
 * backend stores the same deterministic bytes, so moving between them is a copy). For the CLI.
 */
import type { LongTermBackend } from './long-term-backend.js';
import { openLongTermBackend } from './open-long-term-backend.js';

/** Options of {@link copyLongTerm}. */
export interface CopyLongTermOptions {
  /** Rows per read and per write batch (default 500). */
  readonly batchSize?: number;
  /** Called after each batch with the running totals (progress output). */
  readonly onBatch?: (progress: CopyLongTermReport) => void;
}

/** What a copy did. */
export interface CopyLongTermReport {
  /** Rows read from the source. */
  readonly read: number;
  /** Rows written to the target (the rest were refused by its seq guard: it already held newer ones). */
  readonly applied: number;
}

/**
 * Copies every row of `from` into `to` through the target's seq guard: into an empty target the
 * copy is exact; into a target that already holds rows, newer target rows win and equal seqs are
 * overwritten with the source's bytes. Safe to re-run after a crash (a repeat converges on the
 * same rows). Not a snapshot: rows written to `from` during the copy may or may not be included,
 * so stop writers first for an exact migration.
 */
export async function copyRows(from: LongTermBackend, to: LongTermBackend, options: CopyLongTermOptions = {}): Promise<CopyLongTermReport> {
  let read = 0;
  let applied = 0;
  for await (const batch of from.exportRows(options.batchSize ?? 500)) {
    applied += await to.importRows(batch);
    read += batch.length;
    options.onBatch?.({ read, applied });
  }
  return { read, applied };
}

/**
 * Opens both URIs (the target migrated if it is PostgreSQL), copies every row with
 * {@link copyRows} and closes both.
 *
 * @throws {LongTermUriError} for an invalid URI, before anything connects.
 * @throws {LongTermUnavailable} when either store fails; re-running is safe.
 * @example
 * ```ts
 * const { read, applied } = await copyLongTerm('sqlite://.data/longterm.db', 'postgresql://app@db/agents');
 * ```
 */
export async function copyLongTerm(fromUri: string, toUri: string, options: CopyLongTermOptions = {}): Promise<CopyLongTermReport> {
  const from = await openLongTermBackend(fromUri, { migrate: false });
  try {
    const to = await openLongTermBackend(toUri);
    try {
      return await copyRows(from, to, options);
    } finally {
      await to.close();
    }
  } finally {
    await from.close();
  }
}
