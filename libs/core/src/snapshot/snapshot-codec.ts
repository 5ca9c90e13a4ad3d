/**
 * The key snapshot file format, versions 1 and 2 (docs/replay.md): UTF-8 JSON, two-space indented, fields
 * in a fixed order, bytes as base64 beside their size and sha256. Encoding is deterministic (the
 * same snapshot always yields the same bytes; the golden spec pins them). Decoding validates every
 * field, checks each blob's digest against its bytes, and ignores fields it does not know, so a
 * file from a newer binary that only added fields still reads. Version 2 adds `journal` (last): a
 * version 1 snapshot is written without it, byte for byte as a version 1 binary wrote it, and reads
 * with an empty journal.
 */
import { createHash } from 'node:crypto';
import { z } from 'zod';
import type { HeaderDoc } from '../actor/actor-document.js';
import { HeaderName } from '../vocabulary/header-name.js';
import {
  CURRENT_SNAPSHOT_VERSION,
  KEY_SNAPSHOT_FORMAT,
  type KeySnapshot,
  type RecordedEffect,
  type RecordedInboxMessage,
  type RecordedMessage,
  type SnapshotBlob,
} from './key-snapshot.js';
import { SnapshotFormatError, SnapshotFromFuture } from './snapshot-errors.js';

/** A blob of `data`: its size, its sha256 and the bytes (a Buffer is copied to a plain Uint8Array). */
export function snapshotBlob(data: Uint8Array): SnapshotBlob {
  const plain = data.constructor === Uint8Array ? data : Uint8Array.from(data);
  return { bytes: plain.length, sha256: createHash('sha256').update(plain).digest('hex'), data: plain };
}

const blobJson = (blob: SnapshotBlob): Record<string, unknown> => ({
  bytes: blob.bytes,
  sha256: blob.sha256,
  ...(blob.data !== undefined ? { base64: Buffer.from(blob.data).toString('base64') } : {}),
});
const headersJson = (headers: readonly HeaderDoc[]): string[][] => headers.map((h) => [h.name, h.value]);
const messageJson = (m: RecordedMessage): Record<string, unknown> => ({ streamSeq: m.streamSeq, subject: m.subject, headers: headersJson(m.headers), data: blobJson(m.data) });

/**
 * The file bytes of `snapshot`. Deterministic: a re-export of an unchanged key differs only in
 * `takenAtMs`.
 */
export function encodeKeySnapshot(snapshot: KeySnapshot): Uint8Array {
  const json = {
    format: KEY_SNAPSHOT_FORMAT,
    version: snapshot.version,
    agent: snapshot.agent,
    key: blobJson(snapshot.key),
    takenAtMs: snapshot.takenAtMs,
    redacted: snapshot.redacted,
    source: { prefix: snapshot.source.prefix, partitions: snapshot.source.partitions, inboxFirstSeq: snapshot.source.inboxFirstSeq },
    state: snapshot.state === undefined ? null : { revision: snapshot.state.revision, document: blobJson(snapshot.state.document) },
    inbox: snapshot.inbox.map((m) => ({ ...messageJson(m), applied: m.applied })),
    outputs: snapshot.outputs.map(messageJson),
    intents: snapshot.intents.map(messageJson),
    errors: snapshot.errors.map(messageJson),
    effects: snapshot.effects.map((e) => ({ intentId: e.intentId, revision: e.revision, value: blobJson(e.value) })),
    ...(snapshot.version >= 2 ? { journal: snapshot.journal.map(messageJson) } : {}),
  };
  return new TextEncoder().encode(`${JSON.stringify(json, null, 2)}\n`);
}

const count = z.number().int().nonnegative();
const BlobSchema = z.object({ bytes: count, sha256: z.string().regex(/^[0-9a-f]{64}$/), base64: z.string().optional() });
const MessageSchema = z.object({ streamSeq: count, subject: z.string(), headers: z.array(z.tuple([z.string(), z.string()])), data: BlobSchema });
const SnapshotSchema = z.object({
  format: z.literal(KEY_SNAPSHOT_FORMAT),
  version: z.number().int().positive(),
  agent: z.string().min(1),
  key: BlobSchema,
  takenAtMs: count,
  redacted: z.boolean(),
  source: z.object({ prefix: z.string().min(1), partitions: z.number().int().positive(), inboxFirstSeq: count }),
  state: z.object({ revision: count, document: BlobSchema }).nullable(),
  inbox: z.array(MessageSchema.extend({ applied: z.boolean() })),
  outputs: z.array(MessageSchema),
  intents: z.array(MessageSchema),
  errors: z.array(MessageSchema),
  effects: z.array(z.object({ intentId: z.string(), revision: count, value: BlobSchema })),
  /** Version 2 on. */
  journal: z.array(MessageSchema).optional(),
});

function blobOf(json: z.infer<typeof BlobSchema>, where: string, redacted: boolean): SnapshotBlob {
  if (json.base64 === undefined) {
    if (!redacted) throw new SnapshotFormatError(`${where}: the bytes are missing in a snapshot that is not redacted`);
    return { bytes: json.bytes, sha256: json.sha256 };
  }
  const blob = snapshotBlob(Uint8Array.from(Buffer.from(json.base64, 'base64')));
  if (blob.bytes !== json.bytes || blob.sha256 !== json.sha256) throw new SnapshotFormatError(`${where}: the bytes do not match their recorded size and sha256`);
  return blob;
}

const headersOf = (headers: readonly (readonly [string, string])[]): HeaderDoc[] => headers.map(([name, value]) => ({ name, value }));

/**
 * Reads a snapshot file.
 *
 * @throws {SnapshotFromFuture} for a format version above {@link CURRENT_SNAPSHOT_VERSION}
 * @throws {SnapshotFormatError} for anything that is not a valid snapshot (named field and problem)
 */
export function decodeKeySnapshot(bytes: Uint8Array): KeySnapshot {
  let raw: unknown;
  try {
    raw = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(bytes));
  } catch (error) {
    throw new SnapshotFormatError(`not a key snapshot: ${(error as Error).message}`, { cause: error });
  }
  const version = (raw as { version?: unknown } | null)?.version;
  if (typeof version === 'number' && version > CURRENT_SNAPSHOT_VERSION) throw new SnapshotFromFuture(version, CURRENT_SNAPSHOT_VERSION);
  const parsed = SnapshotSchema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new SnapshotFormatError(`not a key snapshot: ${issue === undefined ? 'invalid' : `${issue.path.join('.') || '(root)'}: ${issue.message}`}`);
  }
  const json = parsed.data;
  if (json.version >= 2 && json.journal === undefined) throw new SnapshotFormatError('not a key snapshot: journal: required from format version 2');
  const redacted = json.redacted;
  const message = (m: z.infer<typeof MessageSchema>, where: string): RecordedMessage => ({
    streamSeq: m.streamSeq,
    subject: m.subject,
    headers: headersOf(m.headers),
    data: blobOf(m.data, where, redacted),
  });
  const inbox: RecordedInboxMessage[] = json.inbox.map((m, i) => ({ ...message(m, `inbox[${i}]`), applied: m.applied }));
  const effects: RecordedEffect[] = json.effects.map((e, i) => ({ intentId: e.intentId, revision: e.revision, value: blobOf(e.value, `effects[${i}]`, redacted) }));
  return {
    version: json.version,
    agent: json.agent,
    key: blobOf(json.key, 'key', redacted),
    takenAtMs: json.takenAtMs,
    redacted,
    source: json.source,
    state: json.state === null ? undefined : { revision: json.state.revision, document: blobOf(json.state.document, 'state.document', redacted) },
    inbox,
    outputs: json.outputs.map((m, i) => message(m, `outputs[${i}]`)),
    intents: json.intents.map((m, i) => message(m, `intents[${i}]`)),
    errors: json.errors.map((m, i) => message(m, `errors[${i}]`)),
    effects,
    journal: (json.journal ?? []).map((m, i) => message(m, `journal[${i}]`)),
  };
}

/**
 * The snapshot to share: no raw key and no payload. Every blob keeps its size and sha256 (so two
 * redacted snapshots still show where they differ), and the key's token in subjects (`keyToken`,
 * as the deployment encodes it) and any `Agents-Key` header become `sha256-<digest>`. A redacted snapshot cannot be replayed.
 */
export function redactKeySnapshot(snapshot: KeySnapshot, keyToken: string): KeySnapshot {
  const strip = (blob: SnapshotBlob): SnapshotBlob => ({ bytes: blob.bytes, sha256: blob.sha256 });
  const digestToken = `sha256-${snapshot.key.sha256}`;
  const subject = (s: string): string =>
    s
      .split('.')
      .map((token) => (token === keyToken ? digestToken : token))
      .join('.');
  // An `Agents-Key` header (ingest-time key) would carry the raw key too.
  const headers = (list: readonly HeaderDoc[]): HeaderDoc[] => list.map((h) => (h.name === HeaderName.Key ? { name: h.name, value: digestToken } : h));
  const message = <M extends RecordedMessage>(m: M): M => ({ ...m, subject: subject(m.subject), headers: headers(m.headers), data: strip(m.data) });
  return {
    ...snapshot,
    key: strip(snapshot.key),
    redacted: true,
    state: snapshot.state === undefined ? undefined : { revision: snapshot.state.revision, document: strip(snapshot.state.document) },
    inbox: snapshot.inbox.map(message),
    outputs: snapshot.outputs.map(message),
    intents: snapshot.intents.map(message),
    errors: snapshot.errors.map(message),
    effects: snapshot.effects.map((e) => ({ ...e, value: strip(e.value) })),
    // Journal subjects name the key by its digest already; the responses go.
    journal: snapshot.journal.map(message),
  };
}
