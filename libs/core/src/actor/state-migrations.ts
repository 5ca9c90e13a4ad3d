import { CURRENT_STATE_SCHEMA_VERSION, type ActorDocument } from './actor-document.js';

/** One pure step from `from` to `from + 1`. */
type MigrationStep = (doc: ActorDocument) => ActorDocument;

/** Raised when a version below current has no step: a release bug, caught by the compat specs. */
export class MissingMigrationError extends Error {
  override readonly name = 'MissingMigrationError';
}

/**
 * Single-version steps keyed by the version they upgrade from. Version 1 is the first released
 * schema (version 0, an unstamped document, is read as 1), so the registry is empty today; a
 * schema bump adds exactly one step here plus a frozen golden corpus for the old version.
 */
const steps: ReadonlyMap<number, MigrationStep> = new Map();

/**
 * Upgrades a decoded document to the current version in memory. Identity at the current version
 * (no copy). Never writes: the upgraded form is persisted by the next successful commit.
 */
export function migrateToCurrent(doc: ActorDocument): ActorDocument {
  let current = doc;
  while (current.stateSchemaVersion < CURRENT_STATE_SCHEMA_VERSION) {
    const step = steps.get(current.stateSchemaVersion);
    if (step === undefined) throw new MissingMigrationError(`no migration from state schema version ${current.stateSchemaVersion}`);
    const next = step(current);
    if (next.stateSchemaVersion !== current.stateSchemaVersion + 1) {
      throw new MissingMigrationError(`migration from ${current.stateSchemaVersion} did not advance the version by one`);
    }
    current = next;
  }
  return current;
}

/** The versions that have a registered step (for the completeness spec). */
export function registeredMigrationVersions(): number[] {
  return [...steps.keys()].sort((a, b) => a - b);
}
