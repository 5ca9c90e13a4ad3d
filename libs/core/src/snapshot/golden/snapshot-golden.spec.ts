// Snapshot files leave the cluster and live in users' CI for years, so their bytes are a contract: this spec reads the checked-in files with the current code, re-encodes the corpus byte for byte, and checks that a newer writer's additions are ignored and a newer version is refused.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { decodeKeySnapshot, encodeKeySnapshot } from '../snapshot-codec.js';
import { SnapshotFormatError, SnapshotFromFuture } from '../snapshot-errors.js';
import { fullSnapshotV1, SNAPSHOT_CORPUS_V1 } from './snapshot-corpus-v1.js';

const V1 = join(fileURLToPath(new URL('.', import.meta.url)), 'v1');
const file = (name: string): Uint8Array => Uint8Array.from(readFileSync(join(V1, name)));
const json = (name: string): Record<string, unknown> => JSON.parse(new TextDecoder().decode(file(name))) as Record<string, unknown>;
const bytesOf = (value: unknown): Uint8Array => new TextEncoder().encode(JSON.stringify(value));

beforeAll(() => {
  // eslint-disable-next-line no-restricted-globals, no-restricted-properties -- a developer's opt-in switch (GOLDEN_WRITE=1) for rewriting fixtures, read by the spec only
  if (process.env.GOLDEN_WRITE === '1') for (const { file: name, snapshot } of SNAPSHOT_CORPUS_V1) writeFileSync(join(V1, name), encodeKeySnapshot(snapshot));
});

describe('golden key snapshot files v1', () => {
  for (const { file: name, snapshot } of SNAPSHOT_CORPUS_V1) {
    it(`${name} decodes to its corpus value and the corpus encodes to its exact bytes`, () => {
      expect(decodeKeySnapshot(file(name))).toEqual(snapshot);
      expect(Buffer.from(encodeKeySnapshot(snapshot)).equals(Buffer.from(file(name)))).toBe(true);
    });
  }

  it('keeps the key digest beside the key, and only the digest when redacted', () => {
    expect(json('key-snapshot-full.json').key).toMatchObject({ base64: Buffer.from('order-8').toString('base64'), sha256: fullSnapshotV1.key.sha256 });
    const redacted = new TextDecoder().decode(file('key-snapshot-redacted.json'));
    expect(redacted).not.toContain('order-8');
    expect(redacted).not.toContain('base64');
    expect(redacted).toContain(`sha256-${fullSnapshotV1.key.sha256}`);
  });

  it('ignores fields a newer writer added without a version bump', () => {
    const future = { ...json('key-snapshot-full.json'), producer: 'nats-agents 9', inbox: (json('key-snapshot-full.json').inbox as object[]).map((m) => ({ ...m, note: 'x' })) };
    expect(decodeKeySnapshot(bytesOf(future))).toEqual(fullSnapshotV1);
  });

  it('refuses a newer format version by name', () => {
    expect(() => decodeKeySnapshot(bytesOf({ ...json('key-snapshot-full.json'), version: 2 }))).toThrow(SnapshotFromFuture);
  });

  it('refuses bytes whose digest does not match, another format, and plain garbage', () => {
    const full = json('key-snapshot-full.json');
    const tampered = { ...full, key: { ...(full.key as object), base64: Buffer.from('order-9').toString('base64') } };
    expect(() => decodeKeySnapshot(bytesOf(tampered))).toThrow(/key: the bytes do not match/);
    expect(() => decodeKeySnapshot(bytesOf({ ...full, format: 'something-else' }))).toThrow(SnapshotFormatError);
    expect(() => decodeKeySnapshot(new TextEncoder().encode('not json'))).toThrow(SnapshotFormatError);
    const unredactedWithoutBytes = { ...full, key: { bytes: 7, sha256: fullSnapshotV1.key.sha256 } };
    expect(() => decodeKeySnapshot(bytesOf(unredactedWithoutBytes))).toThrow(/bytes are missing/);
  });
});
