/**
 * Persists a run: `<dir>/<timestamp>.json` (the full result) and `<dir>/latest.md` (the
 * report). Both are git-ignored; `docs/performance.md` quotes the figures worth keeping.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { BenchResult } from './bench-result.js';

/** Where a run was written. */
export interface WrittenResults {
  readonly json: string;
  readonly markdown: string;
}

/** Writes the JSON result and the markdown report; the file name is the run's start time. */
export async function writeResults(dir: string, result: BenchResult, markdown: string): Promise<WrittenResults> {
  await mkdir(dir, { recursive: true });
  const stamp = result.startedAt.replace(/[:.]/g, '-');
  const json = join(dir, `${stamp}.json`);
  const md = join(dir, 'latest.md');
  await writeFile(json, `${JSON.stringify(result, null, 2)}\n`, 'utf8');
  await writeFile(md, markdown, 'utf8');
  return { json, markdown: md };
}
