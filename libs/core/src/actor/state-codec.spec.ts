// The codec is the boundary between the core's documents and the bytes in AGENTS_STATE (invariant 7); schema-version handling and deterministic encoding are checked here, the frozen byte layouts in golden/.
import fc from 'fast-check';
import { v1 } from '#proto';
import { describe, expect, it } from 'vitest';
import { RetryableError } from '../errors/runtime-error.js';
import { utf8Bytes } from '../testing/inbox-elements.js';
import { CURRENT_STATE_SCHEMA_VERSION, emptyActorDocument, type ActorDocument, type CacheEntryDoc } from './actor-document.js';
import { decodeActorDocument, decodeCacheBlob, encodeActorDocument, encodeCacheBlob, StateSchemaFromFuture } from './state-codec.js';
import { MissingMigrationError, migrateToCurrent } from './state-migrations.js';

const hex = (bytes: Uint8Array): string => Buffer.from(bytes).toString('hex');
const base = (): ActorDocument => ({ ...emptyActorDocument('triage', utf8Bytes('k')), seq: 3, lastAppliedSeq: 9, ownerEpoch: 2 });

const documents = fc.record({
  seq: fc.nat(),
  lastAppliedSeq: fc.nat(),
  ownerEpoch: fc.nat(),
  entries: fc.array(fc.record({ key: fc.string({ minLength: 1 }), value: fc.uint8Array({ minLength: 1 }), lastAccessMs: fc.nat() }), { maxLength: 5 }),
  outbox: fc.array(
    fc.record({ subject: fc.string(), msgId: fc.uuid(), payload: fc.uint8Array(), headers: fc.array(fc.record({ name: fc.string(), value: fc.string() }), { maxLength: 3 }) }),
    { maxLength: 3 },
  ),
  deferred: fc.array(fc.record({ inboxSeq: fc.nat(), event: fc.uint8Array(), eventTimeMs: fc.nat(), headers: fc.constant([]) }), { maxLength: 2 }),
});

describe('state codec', () => {
  it('refuses a document from a newer schema with StateSchemaFromFuture, which is retryable', () => {
    for (const version of [CURRENT_STATE_SCHEMA_VERSION + 1, 99]) {
      const bytes = encodeActorDocument({ ...base(), stateSchemaVersion: version });
      let thrown: unknown;
      try {
        decodeActorDocument(bytes);
      } catch (error) {
        thrown = error;
      }
      expect(thrown).toBeInstanceOf(StateSchemaFromFuture);
      expect(thrown).toBeInstanceOf(RetryableError);
      expect(thrown).toMatchObject({ found: version, supported: CURRENT_STATE_SCHEMA_VERSION, name: 'StateSchemaFromFuture' });
      expect((thrown as Error).message).toMatch(/roll the binary forward/);
    }
  });

  it('reads an unstamped document (version 0) as version 1', () => {
    const decoded = decodeActorDocument(encodeActorDocument({ ...base(), stateSchemaVersion: 0 }));
    expect(decoded.stateSchemaVersion).toBe(1);
    expect(decoded).toMatchObject({ seq: 3, lastAppliedSeq: 9, ownerEpoch: 2 });
  });

  it('decodes a document with no fields at all as an empty, unstamped-current document', () => {
    expect(decodeActorDocument(new Uint8Array(0))).toMatchObject({ stateSchemaVersion: 1, agent: '', seq: 0, lastAppliedSeq: 0, continuation: undefined, pending: [], outbox: [] });
  });

  it('encodes deterministically and round-trips through decode to the same bytes', () => {
    fc.assert(
      fc.property(documents, (fields) => {
        const doc: ActorDocument = {
          ...base(),
          seq: fields.seq,
          lastAppliedSeq: fields.lastAppliedSeq,
          ownerEpoch: fields.ownerEpoch,
          memory: { entries: fields.entries, totalBytes: 0 },
          outbox: fields.outbox,
          deferred: fields.deferred,
        };
        const bytes = encodeActorDocument(doc);
        expect(hex(encodeActorDocument(doc))).toBe(hex(bytes));
        expect(hex(encodeActorDocument(decodeActorDocument(Uint8Array.from(bytes))))).toBe(hex(bytes));
      }),
      { seed: 1_234, numRuns: 100 },
    );
  });
});

/** The whole document through the generated encoder in one call: what encodeActorDocument must equal byte for byte. */
function referenceEncoding(doc: ActorDocument): Uint8Array {
  return v1.ActorState.encode({
    stateSchemaVersion: doc.stateSchemaVersion,
    agent: doc.agent,
    entityKey: doc.entityKey,
    seq: doc.seq,
    lastAppliedSeq: doc.lastAppliedSeq,
    ownerEpoch: doc.ownerEpoch,
    memory: { entries: doc.memory.entries.map((e) => ({ key: e.key, value: e.value, lastAccessMs: e.lastAccessMs })), totalBytes: doc.memory.totalBytes },
    llmCache: { entries: doc.llmCache.entries.map((e) => ({ ...e })), totalResponseBytes: doc.llmCache.totalResponseBytes },
    continuation: null,
    pending: [],
    outbox: doc.outbox.map((o) => ({ subject: o.subject, msgId: o.msgId, payload: o.payload, headers: o.headers.map((h) => ({ ...h })) })),
    timers: doc.timers.map((t) => ({ ...t })),
    deferred: [],
  }).finish();
}

const cacheEntries = fc.array(
  fc.record({
    cacheKey: fc.string(),
    response: fc.uint8Array({ maxLength: 300 }),
    responseDigest: fc.uint8Array({ maxLength: 32 }),
    createdAtMs: fc.nat(),
    lastAccessMs: fc.nat(),
    digestOnly: fc.boolean(),
  }),
  { maxLength: 8 },
);

describe('state codec, replay-cache field', () => {
  it('writes exactly what the generated encoder writes for the whole document, with or without a cache', () => {
    fc.assert(
      fc.property(cacheEntries, fc.nat(), documents, (entries, total, fields) => {
        const doc: ActorDocument = {
          ...base(),
          seq: fields.seq,
          memory: { entries: fields.entries, totalBytes: 0 },
          llmCache: { entries, totalResponseBytes: total },
          outbox: fields.outbox,
          timers: [{ timerId: 'idle', kind: 2, dueAtMs: fields.lastAppliedSeq }],
        };
        expect(hex(encodeActorDocument(doc))).toBe(hex(referenceEncoding(doc)));
      }),
      { seed: 4_321, numRuns: 300 },
    );
  });

  it('still writes the right bytes when a later document reuses some entries and replaces others', () => {
    fc.assert(
      fc.property(cacheEntries, cacheEntries, (first, replacements) => {
        const before: ActorDocument = { ...base(), llmCache: { entries: first, totalResponseBytes: 1 } };
        encodeActorDocument(before);
        const kept: CacheEntryDoc[] = first.filter((_, i) => i % 2 === 0);
        const after: ActorDocument = { ...base(), llmCache: { entries: [...kept, ...replacements], totalResponseBytes: 2 } };
        expect(hex(encodeActorDocument(after))).toBe(hex(referenceEncoding(after)));
        expect(hex(encodeActorDocument(before))).toBe(hex(referenceEncoding(before)));
      }),
      { seed: 8_765, numRuns: 200 },
    );
  });

  it('writes a journal payload byte for byte as the generated encoder, whether its entries were in an earlier document or not', () => {
    fc.assert(
      fc.property(cacheEntries, cacheEntries, fc.nat(), (committed, fresh, total) => {
        // Entries an earlier commit wrote (their encoding kept), mixed with entries never encoded.
        encodeActorDocument({ ...base(), llmCache: { entries: committed, totalResponseBytes: 1 } });
        const entries = [...fresh, ...committed].sort((a, b) => a.createdAtMs - b.createdAtMs);
        const blob = { entries, totalResponseBytes: total };
        const reference = v1.LlmCacheBlob.encode({ entries: entries.map((e) => ({ ...e })), totalResponseBytes: total }).finish();
        expect(hex(encodeCacheBlob(blob))).toBe(hex(reference));
        expect(decodeCacheBlob(encodeCacheBlob(blob)).entries).toHaveLength(entries.length);
        // The payload is also what the state document's llm_cache field holds for the same entries.
        const doc: ActorDocument = { ...base(), llmCache: blob };
        expect(hex(encodeActorDocument(doc))).toBe(hex(referenceEncoding(doc)));
      }),
      { seed: 2_468, numRuns: 200 },
    );
  });
});

describe('state migrations', () => {
  it('leaves a current document untouched (the same object, no copy)', () => {
    const doc = base();
    expect(migrateToCurrent(doc)).toBe(doc);
  });

  it('refuses a version below current that has no registered step', () => {
    expect(() => migrateToCurrent({ ...base(), stateSchemaVersion: 0 })).toThrow(MissingMigrationError);
  });
});
