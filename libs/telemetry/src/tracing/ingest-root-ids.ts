import { hash } from 'node:crypto';

/** The trace and span id an ingest message without trace context roots (see {@link ingestRootIds}). */
export interface RootIds {
  /** 32 lower-case hex digits, never all zeros. */
  readonly traceId: string;
  /** 16 lower-case hex digits, never all zeros. */
  readonly spanId: string;
}

/**
 * The ids of the trace an ingest message published without trace context roots: derived from
 * its ingest stream and sequence, so a redelivery, a retry or a replay of the message joins the
 * trace of its first delivery. Within one stream, two sequences never share a trace id: the
 * first two 32-bit words of the id are a bijection of the sequence's low and high words (keyed by
 * the stream), and the other two are mixed from them. Across streams the keys differ, so their
 * ids collide no more often than random ones. The words come from MurmurHash3's 32-bit finalizer
 * (`fmix32`), a bijection with full avalanche, so the ratio samplers, which decide by the trace
 * id's bits, see uniformly spread ids.
 *
 * Why not a digest of the parts, as {@link derivedTraceId} takes for other roots: ingress decides
 * every message's root this way, sampled or not, and sha256 with its hex encoding was the largest
 * single cost tracing added to ingress at a 10 % ratio (decision 0089). The stream's key is one
 * sha256, computed once per stream.
 *
 * Pure: the same stream and sequence give the same ids in every process and after every restart.
 *
 * @param seq the message's ingest stream sequence (a positive safe integer).
 */
export function ingestRootIds(stream: string, seq: number): RootIds {
  const k = keyOf(stream);
  const lo = seq >>> 0;
  const hi = Math.floor(seq / 0x1_0000_0000) >>> 0;
  const w0 = fmix32(lo ^ k[0]!);
  const w1 = fmix32((hi ^ k[1]!) + w0);
  const w2 = fmix32(w0 ^ k[2]! ^ rotl(w1, 16));
  const w3 = fmix32(w1 ^ k[3]! ^ rotl(w2, 8));
  const s0 = fmix32(w2 ^ k[4]! ^ rotl(w3, 24));
  const s1 = fmix32(w3 ^ k[5]! ^ rotl(s0, 16));
  // w0 and w1 alone tell sequences apart; the trace id holds both, so it is never all zeros
  // unless both are (fmix32(x) is 0 only for x = 0): then the last digit is set, as for digests.
  const traceId = hex8(w2) + hex8(w3) + hex8(w0) + hex8(w1);
  const spanId = hex8(s0) + hex8(s1);
  return {
    traceId: (w0 | w1) === 0 ? `${traceId.slice(0, -1)}1` : traceId,
    spanId: (s0 | s1) === 0 ? `${spanId.slice(0, -1)}1` : spanId,
  };
}

/** The last stream's key: ingress consumes one stream, so this is computed once per process. */
let lastStream: string | undefined;
let lastKey: Uint32Array = new Uint32Array(8);

function keyOf(stream: string): Uint32Array {
  if (stream === lastStream) return lastKey;
  const digest = hash('sha256', `ingest|${stream}`, 'buffer');
  const key = new Uint32Array(8);
  for (let i = 0; i < 8; i += 1) key[i] = digest.readUInt32BE(i * 4);
  lastStream = stream;
  lastKey = key;
  return key;
}

/** MurmurHash3's 32-bit finalizer: a bijection on 32-bit words with full avalanche. */
function fmix32(x: number): number {
  let h = x >>> 0;
  h ^= h >>> 16;
  h = Math.imul(h, 0x85eb_ca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2_ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

function rotl(x: number, r: number): number {
  return ((x << r) | (x >>> (32 - r))) >>> 0;
}

/** Two lower-case hex digits per byte value: `Number#toString(16)` takes a slow path for words above 2^31. */
const HEX_BYTE: readonly string[] = Array.from({ length: 256 }, (_, b) => b.toString(16).padStart(2, '0'));

function hex8(word: number): string {
  return HEX_BYTE[word >>> 24]! + HEX_BYTE[(word >>> 16) & 0xff]! + HEX_BYTE[(word >>> 8) & 0xff]! + HEX_BYTE[word & 0xff]!;
}
