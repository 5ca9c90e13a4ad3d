// Snapshot files leave the cluster and live in users' CI for years, so their bytes are a contract: this spec reads the checked-in files of every version with the current code, re-encodes each corpus byte for byte, and checks that a newer writer's additions are ignored and a newer version is refused.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { decodeJournalPayload } from '../../replay/replay-journal.js';
import { CURRENT_SNAPSHOT_VERSION, type KeySnapshot } from '../key-snapshot.js';
import { decodeKeySnapshot, encodeKeySnapshot } from '../snapshot-codec.js';
import { SnapshotFormatError, SnapshotFromFuture } from '../snapshot-errors.js';
import { fullSnapshotV1, SNAPSHOT_CORPUS_V1 } from './snapshot-corpus-v1.js';
import { fullSnapshotV2, SNAPSHOT_CORPUS_V2 } from './snapshot-corpus-v2.js';

const HERE = fileURLToPath(new URL('.', import.meta.url));
const CORPORA: readonly { readonly version: number; readonly corpus: readonly { readonly file: string; readonly snapshot: KeySnapshot }[] }[] = [
  { version: 1, corpus: SNAPSHOT_CORPUS_V1 },
  { version: 2, corpus: SNAPSHOT_CORPUS_V2 },
];
const file = (version: number, name: string): Uint8Array => Uint8Array.from(readFileSync(join(HERE, `v${version}`, name)));
const json = (version: number, name: string): Record<string, unknown> => JSON.parse(new TextDecoder().decode(file(version, name))) as Record<string, unknown>;
const bytesOf = (value: unknown): Uint8Array => new TextEncoder().encode(JSON.stringify(value));

beforeAll(() => {
  // Only the current version's files may be (re)written: older ones are what older binaries wrote.
  // eslint-disable-next-line no-restricted-globals, no-restricted-properties -- a developer's opt-in switch (GOLDEN_WRITE=1) for rewriting fixtures, read by the spec only
  if (process.env.GOLDEN_WRITE === '1') for (const { file: name, snapshot } of SNAPSHOT_CORPUS_V2) writeFileSync(join(HERE, 'v2', name), encodeKeySnapshot(snapshot));
});

for (const { version, corpus } of CORPORA) {
  describe(`golden key snapshot files v${version}`, () => {
    for (const { file: name, snapshot } of corpus) {
      it(`${name} decodes to its corpus value and the corpus encodes to its exact bytes`, () => {
        expect(decodeKeySnapshot(file(version, name))).toEqual(snapshot);
        expect(Buffer.from(encodeKeySnapshot(snapshot)).equals(Buffer.from(file(version, name)))).toBe(true);
      });
    }

    it('keeps the key digest beside the key, and only the digest when redacted', () => {
      expect(json(version, 'key-snapshot-full.json').key).toMatchObject({ base64: Buffer.from('order-8').toString('base64'), sha256: fullSnapshotV1.key.sha256 });
      const redacted = new TextDecoder().decode(file(version, 'key-snapshot-redacted.json'));
      expect(redacted).not.toContain('order-8');
      expect(redacted).not.toContain('base64');
      expect(redacted).toContain(`sha256-${fullSnapshotV1.key.sha256}`);
    });

    it('ignores fields a newer writer added without a version bump', () => {
      const full = json(version, 'key-snapshot-full.json');
      const future = { ...full, producer: 'nats-agents 9', inbox: (full.inbox as object[]).map((m) => ({ ...m, note: 'x' })) };
      expect(decodeKeySnapshot(bytesOf(future))).toEqual(corpus[0]!.snapshot);
    });
  });
}

describe('key snapshot versions', () => {
  it('reads a version 1 file with an empty journal and writes it back without one', () => {
    expect(decodeKeySnapshot(file(1, 'key-snapshot-full.json')).journal).toEqual([]);
    expect(json(1, 'key-snapshot-full.json')).not.toHaveProperty('journal');
  });

  it('writes the journal from version 2 on: the responses a replay answers from, and only their digests when redacted', () => {
    expect(CURRENT_SNAPSHOT_VERSION).toBe(2);
    const [journaled] = decodeKeySnapshot(file(2, 'key-snapshot-full.json')).journal;
    expect(journaled?.subject).toBe(`agents.journal.refund.${fullSnapshotV2.key.sha256}`);
    expect(decodeJournalPayload(journaled!.data.data!).entries.map((e) => [e.cacheKey.slice(0, 1), new TextDecoder().decode(e.response), e.digestOnly])).toEqual([
      ['a', '{"text":"looks fine"}', false],
      ['b', '', true],
    ]);
    const [redacted] = decodeKeySnapshot(file(2, 'key-snapshot-redacted.json')).journal;
    expect(redacted).toMatchObject({ subject: journaled!.subject, data: { bytes: journaled!.data.bytes, sha256: journaled!.data.sha256 } });
    expect(redacted!.data.data).toBeUndefined();
  });

  it('refuses a version 2 file without its journal', () => {
    const { journal: _dropped, ...withoutJournal } = json(2, 'key-snapshot-full.json');
    expect(() => decodeKeySnapshot(bytesOf(withoutJournal))).toThrow(/journal: required from format version 2/);
  });

  it('refuses a newer format version by name', () => {
    expect(() => decodeKeySnapshot(bytesOf({ ...json(2, 'key-snapshot-full.json'), version: CURRENT_SNAPSHOT_VERSION + 1 }))).toThrow(SnapshotFromFuture);
  });

  it('refuses bytes whose digest does not match, another format, and plain garbage', () => {
    const full = json(2, 'key-snapshot-full.json');
    const tampered = { ...full, key: { ...(full.key as object), base64: Buffer.from('order-9').toString('base64') } };
    expect(() => decodeKeySnapshot(bytesOf(tampered))).toThrow(/key: the bytes do not match/);
    const journal = full.journal as { data: object }[];
    const tamperedJournal = { ...full, journal: [{ ...journal[0], data: { ...journal[0]!.data, base64: Buffer.from('forged').toString('base64') } }] };
    expect(() => decodeKeySnapshot(bytesOf(tamperedJournal))).toThrow(/journal\[0\]: the bytes do not match/);
    expect(() => decodeKeySnapshot(bytesOf({ ...full, format: 'something-else' }))).toThrow(SnapshotFormatError);
    expect(() => decodeKeySnapshot(new TextEncoder().encode('not json'))).toThrow(SnapshotFormatError);
    const unredactedWithoutBytes = { ...full, key: { bytes: 7, sha256: fullSnapshotV1.key.sha256 } };
    expect(() => decodeKeySnapshot(bytesOf(unredactedWithoutBytes))).toThrow(/bytes are missing/);
  });
});
