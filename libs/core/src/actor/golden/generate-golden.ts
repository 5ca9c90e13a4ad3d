/**
 * Writes the golden corpus of the CURRENT state schema version, and only that one: directories of
 * older versions are frozen history and are never rewritten. Run through the golden spec with
 * `GOLDEN_WRITE=1 npx vitest run --project unit libs/core/src/actor/golden`; a plain run only
 * reads. Performs file I/O when called; importing it has no side effects.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { CURRENT_STATE_SCHEMA_VERSION } from '../actor-document.js';
import { CORPUS_VERSION, corpusV1, type GoldenCase } from './corpus-v1.js';

/** The corpus each version's directory holds; a schema bump adds its own entry here. */
export const corpora: ReadonlyMap<number, readonly GoldenCase[]> = new Map([[CORPUS_VERSION, corpusV1]]);

/** The directory of `version` under `root` (`<root>/v<version>`). */
export function corpusDirectory(root: string, version: number): string {
  return join(root, `v${version}`);
}

/**
 * Writes every blob of the current version's corpus under `root/v<CURRENT>`; returns the paths
 * written. Throws when the current version has no corpus (a bump without a new corpus).
 */
export function generateGolden(root: string): string[] {
  const corpus = corpora.get(CURRENT_STATE_SCHEMA_VERSION);
  if (corpus === undefined) throw new Error(`no golden corpus is defined for state schema version ${CURRENT_STATE_SCHEMA_VERSION}`);
  const directory = corpusDirectory(root, CURRENT_STATE_SCHEMA_VERSION);
  mkdirSync(directory, { recursive: true });
  return corpus.map((golden) => {
    const path = join(directory, golden.file);
    writeFileSync(path, golden.bytes());
    return path;
  });
}
