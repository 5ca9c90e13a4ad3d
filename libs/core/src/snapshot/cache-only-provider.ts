/**
 * The model provider of an offline replay: it answers only from what the snapshot recorded (the
 * replay cache its committed state holds, for the live suspension, and the replay journal, for
 * completed activations) and never opens a connection. A request the recording does not hold
 * (evicted, expired, stored digest-only, not journaled, or asked by a changed agent) is a miss: the
 * call throws and the miss is kept, so the replay reports the run as irreproducible instead of
 * inventing an answer.
 */
import type { CacheBlobDoc } from '../actor/actor-document.js';
import { TerminalError } from '../errors/runtime-error.js';
import type { DecodedResponse, ModelProvider, ModelRequest, ProviderCallOptions } from '../model/model-request.js';
import { replayCacheKey } from '../replay/replay-cache-key.js';

/** A model call the snapshot cannot answer. */
export class ReplayCacheMiss extends TerminalError {
  override readonly name = 'ReplayCacheMiss';
}

/**
 * One unanswered request: the model, the activation seq it was asked at, and why:
 * - `completed`: that activation completed before the snapshot was taken and the snapshot holds no
 *   journal of it (the deployment's journal is off or aged it out, or the snapshot predates format
 *   version 2): a completed activation's answers are kept only there (decisions 0016, 0073);
 * - `digest-only`: the recording keeps only the digest of an oversized answer;
 * - `absent`: the live suspension or the journaled activation never asked this (a changed agent,
 *   or an entry evicted before it was recorded).
 */
export interface CacheMissRecord {
  readonly model: string;
  readonly seqHint: number;
  readonly why: 'completed' | 'absent' | 'digest-only';
}

/** One journaled activation of the snapshot: its activation seq and the responses it was answered with. */
export interface JournaledActivation {
  readonly seq: number;
  readonly cache: CacheBlobDoc;
}

/** Answers from recorded cache entries; `seqHint` is the seq the replay driver expects the call at. */
export class CacheOnlyProvider implements ModelProvider {
  readonly name = 'replay-cache';
  readonly misses: CacheMissRecord[] = [];
  /** Calls answered from the recording (a replayed activation asks the provider because its own cache starts empty). */
  answered = 0;
  /** Calls the recording could not answer and the fallback did. */
  fellBack = 0;
  /**
   * Answers what the recording cannot (a scripted model in CI); absent = a miss is irreproducible.
   * A completed activation commits an empty replay cache, so its responses are in a snapshot only
   * when the deployment journaled them: without a journal, replaying a model-calling agent's
   * completed activations needs one (decision 0073).
   */
  fallback: ModelProvider | undefined;
  seqHint = 0;
  decode?: (body: Uint8Array) => DecodedResponse;
  private readonly entries: ReadonlyMap<string, { readonly response: Uint8Array; readonly digestOnly: boolean }>;
  /** Activation seqs the journal recorded. */
  private readonly journaled: ReadonlySet<number>;

  /**
   * @param cache the snapshot's committed replay cache
   * @param key the entity key (part of every cache key)
   * @param maxSeq the highest seq a call may have run at (the committed document's `seq`)
   * @param decode the deployment's response decoder (what its provider's `decode` does); absent = UTF-8 text
   * @param liveSeq the seq of the suspension the committed document holds (undefined: none), the only
   *   activation whose answers the cache can hold
   * @param journal the completed activations the snapshot's replay journal recorded
   */
  constructor(
    cache: CacheBlobDoc,
    private readonly key: Uint8Array,
    private readonly maxSeq: number,
    decode?: (body: Uint8Array) => DecodedResponse,
    private readonly liveSeq?: number,
    journal: readonly JournaledActivation[] = [],
  ) {
    if (decode !== undefined) this.decode = decode;
    // Cache keys embed (key, seq), so the live scope's and every journaled scope's entries never collide.
    const entries = [...cache.entries, ...journal.flatMap((j) => j.cache.entries)];
    this.entries = new Map(entries.map((e) => [e.cacheKey, { response: e.response, digestOnly: e.digestOnly }]));
    this.journaled = new Set(journal.map((j) => j.seq));
  }

  complete(request: ModelRequest, options: ProviderCallOptions): Promise<Uint8Array> {
    const seqs = [this.seqHint, ...Array.from({ length: this.maxSeq + 1 }, (_, s) => s).filter((s) => s !== this.seqHint)];
    let digestOnly = false;
    for (const seq of seqs) {
      const entry = this.entries.get(replayCacheKey(request, this.key, seq));
      if (entry === undefined) continue;
      if (entry.digestOnly) {
        digestOnly = true;
        continue;
      }
      this.answered += 1;
      return Promise.resolve(entry.response);
    }
    if (this.fallback !== undefined) {
      this.fellBack += 1;
      return this.fallback.complete(request, options);
    }
    const recorded = this.seqHint === this.liveSeq || this.journaled.has(this.seqHint);
    const why = digestOnly ? 'digest-only' : recorded ? 'absent' : 'completed';
    this.misses.push({ model: request.model, seqHint: this.seqHint, why });
    return Promise.reject(
      new ReplayCacheMiss(
        why === 'digest-only'
          ? `model ${request.model}: the snapshot keeps only the digest of this response (over the cache's size cap)`
          : why === 'completed'
            ? `model ${request.model}: activation seq ${this.seqHint} completed before the snapshot was taken, and the snapshot holds no replay journal of it`
            : `model ${request.model}: the snapshot records no response for this request (evicted, expired, or a request the recorded run never made)`,
      ),
    );
  }
}
