/**
 * The benchmark's event body and its correlation id. Each event is JSON
 * `{"id":"<run>/<key index>/<seq>","t":<send time, epoch ms>}`; both agents (and the baseline
 * worker) output the event bytes verbatim, so an output names exactly which publish it answers:
 * by key and per-key sequence, never by timing.
 */

/** Which event an output answers. */
export interface EventId {
  readonly run: string;
  readonly keyIndex: number;
  readonly seq: number;
}

const utf8 = new TextEncoder();
const utf8Decoder = new TextDecoder();

/** The event body for `id`, stamped with the send time `sentAtEpochMs` (informative only). */
export function encodeEvent(id: EventId, sentAtEpochMs: number): Uint8Array {
  return utf8.encode(JSON.stringify({ id: `${id.run}/${id.keyIndex}/${id.seq}`, t: Math.round(sentAtEpochMs * 1_000) / 1_000 }));
}

/** The id an output carries, or `undefined` when the bytes are not a benchmark event. */
export function decodeEventId(bytes: Uint8Array): EventId | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(utf8Decoder.decode(bytes));
  } catch {
    return undefined;
  }
  const id = (parsed as { id?: unknown } | null)?.id;
  if (typeof id !== 'string') return undefined;
  const [run, keyIndex, seq] = id.split('/');
  if (run === undefined || keyIndex === undefined || seq === undefined) return undefined;
  const k = Number(keyIndex);
  const s = Number(seq);
  if (!Number.isSafeInteger(k) || !Number.isSafeInteger(s)) return undefined;
  return { run, keyIndex: k, seq: s };
}
