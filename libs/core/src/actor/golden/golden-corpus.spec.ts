// The golden blobs are the bytes already sitting in users' buckets and streams (GATE: compat, §1.M); only a spec that reads them with the current code can prove a release still understands them and writes them identically.
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { CURRENT_STATE_SCHEMA_VERSION } from '../actor-document.js';
import { registeredMigrationVersions } from '../state-migrations.js';
import { corpusV1, FUTURE_FIELDS } from './corpus-v1.js';
import { corpora, corpusDirectory, generateGolden } from './generate-golden.js';

const ROOT = fileURLToPath(new URL('.', import.meta.url));

/**
 * Every blob of v1, by name. The corpus may only grow: removing a name here is a reviewed
 * decision, and a blob that disappears from disk fails the suite.
 */
const V1_FILES = [
  'actor-state-full.bin',
  'actor-state-empty-key.bin',
  'actor-state-unstamped.bin',
  'actor-state-future-field.bin',
  'inbox-envelope-event.bin',
  'inbox-envelope-tool-result.bin',
  'inbox-envelope-approval.bin',
  'inbox-envelope-timer.bin',
  'inbox-envelope-future-field.bin',
  'tool-intent-plain.bin',
  'tool-intent-approval.bin',
  'tool-intent-signed.bin',
  'tool-intent-unset-kind.bin',
  'tool-intent-future-field.bin',
  'tool-result-ok.bin',
  'tool-result-error.bin',
  'tool-result-future-field.bin',
  'approval.bin',
  'approval-future-field.bin',
  'error-record.bin',
  'error-record-future-field.bin',
];

const hex = (bytes: Uint8Array): string => Buffer.from(bytes).toString('hex');
/** A blob as a plain Uint8Array, the way NATS clients hand values over. */
const blob = (version: number, file: string): Uint8Array => Uint8Array.from(readFileSync(join(corpusDirectory(ROOT, version), file)));

/** Deep copy with every byte array (protobufjs hands out Buffers for some fields) as a plain Uint8Array. */
function plain(value: unknown): unknown {
  if (value instanceof Uint8Array) return Uint8Array.from(value);
  if (Array.isArray(value)) return value.map(plain);
  if (typeof value === 'object' && value !== null) return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, plain(v)]));
  return value;
}

beforeAll(() => {
  // Regeneration is explicit and only ever writes the current version's directory.
  // eslint-disable-next-line no-restricted-globals, no-restricted-properties -- a developer's opt-in switch (GOLDEN_WRITE=1) for rewriting fixtures, read by the spec only; no core code path sees it
  if (process.env.GOLDEN_WRITE === '1') generateGolden(ROOT);
});

describe('golden state corpus v1', () => {
  it('still holds every blob it ever held', () => {
    const onDisk = readdirSync(corpusDirectory(ROOT, 1));
    for (const file of V1_FILES) expect(onDisk, `missing golden blob v1/${file}`).toContain(file);
  });

  it('describes every blob on disk and every listed name', () => {
    const described = corpusV1.map((golden) => golden.file).sort();
    expect(described).toEqual([...V1_FILES].sort());
    const onDisk = readdirSync(corpusDirectory(ROOT, 1)).filter((file) => file.endsWith('.bin'));
    expect(onDisk.sort()).toEqual(described);
  });

  describe.each(corpusV1.map((golden) => [golden.file, golden] as const))('%s', (_file, golden) => {
    it('decodes with the current code to the expected value, field by field', () => {
      expect(plain(golden.decode(blob(1, golden.file)))).toEqual(plain(golden.expected));
    });

    it('is exactly what the generator writes today', () => {
      expect(hex(golden.bytes())).toBe(hex(blob(1, golden.file)));
    });

    if (golden.reencode !== undefined) {
      const reencode = golden.reencode;
      it('re-encodes from the expected value to the exact golden bytes', () => {
        expect(hex(reencode())).toBe(hex(blob(1, golden.file)));
      });
    }

    if (golden.wire !== undefined) {
      const wire = golden.wire;
      it('survives decode and re-encode through the generated v1 class byte for byte, unknown fields included', () => {
        const bytes = blob(1, golden.file);
        expect(hex(wire.encode(wire.decode(bytes)).finish())).toBe(hex(bytes));
      });
    }
  });

  it('carries the future fields at the end of every *-future-field blob', () => {
    const future = corpusV1.filter((golden) => golden.file.endsWith('-future-field.bin'));
    expect(future.length).toBeGreaterThanOrEqual(5);
    for (const golden of future) expect(hex(blob(1, golden.file)).endsWith(hex(FUTURE_FIELDS))).toBe(true);
  });
});

describe('schema versions and migrations', () => {
  it('keeps a frozen corpus directory and a corpus definition for every version up to the current one', () => {
    for (let version = 1; version <= CURRENT_STATE_SCHEMA_VERSION; version += 1) {
      expect(existsSync(corpusDirectory(ROOT, version)), `golden/v${version} is missing`).toBe(true);
      expect(corpora.has(version), `no corpus definition for v${version}`).toBe(true);
    }
    expect(existsSync(corpusDirectory(ROOT, CURRENT_STATE_SCHEMA_VERSION + 1))).toBe(false);
  });

  it('registers a migration step for every version below the current one, and none for later ones', () => {
    const below = Array.from({ length: CURRENT_STATE_SCHEMA_VERSION - 1 }, (_, index) => index + 1);
    expect(registeredMigrationVersions()).toEqual(below);
  });

  it('has a generator that writes only the current version, byte-identical to the committed corpus', () => {
    const scratch = mkdtempSync(join(tmpdir(), 'golden-'));
    try {
      const written = generateGolden(scratch);
      expect(readdirSync(scratch)).toEqual([`v${CURRENT_STATE_SCHEMA_VERSION}`]);
      expect(written).toHaveLength(corpusV1.length);
      for (const golden of corpusV1) {
        const fresh = Uint8Array.from(readFileSync(join(corpusDirectory(scratch, CURRENT_STATE_SCHEMA_VERSION), golden.file)));
        expect(hex(fresh)).toBe(hex(blob(CURRENT_STATE_SCHEMA_VERSION, golden.file)));
      }
    } finally {
      rmSync(scratch, { recursive: true, force: true });
    }
  });
});
