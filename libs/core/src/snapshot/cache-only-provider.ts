/**
 * The model provider of an offline replay: it answers only from the replay cache a snapshot's
 * committed state holds, and never opens a connection. A request the cache does not hold (evicted,
 * expired, stored digest-only, or asked by a changed agent) is a miss: the call throws and the miss
 * is kept, so the replay reports the run as irreproducible instead of inventing an answer.
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
 * - `completed`: that activation completed before the snapshot was taken, and a completed
 *   activation's answers are not kept anywhere in the cluster (decision 0016, 0061);
 * - `digest-only`: the live suspension's cache keeps only the digest of an oversized answer;
 * - `absent`: the live suspension never asked this (a changed agent, or an evicted entry).
 */
export interface CacheMissRecord {
  readonly model: string;
  readonly seqHint: number;
  readonly why: 'completed' | 'absent' | 'digest-only';
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
   * A completed activation commits an empty replay cache, so only a suspended activation's responses
   * are in a snapshot: replaying a model-calling agent's completed activations needs one (decision 0061).
   */
  fallback: ModelProvider | undefined;
  seqHint = 0;
  decode?: (body: Uint8Array) => DecodedResponse;
  private readonly entries: ReadonlyMap<string, { readonly response: Uint8Array; readonly digestOnly: boolean }>;

  /**
   * @param cache the snapshot's committed replay cache
   * @param key the entity key (part of every cache key)
   * @param maxSeq the highest seq a call may have run at (the committed document's `seq`)
   * @param decode the deployment's response decoder (what its provider's `decode` does); absent = UTF-8 text
   * @param liveSeq the seq of the suspension the committed document holds (undefined: none), the only
   *   activation whose answers the cache can hold
   */
  constructor(
    cache: CacheBlobDoc,
    private readonly key: Uint8Array,
    private readonly maxSeq: number,
    decode?: (body: Uint8Array) => DecodedResponse,
    private readonly liveSeq?: number,
  ) {
    if (decode !== undefined) this.decode = decode;
    this.entries = new Map(cache.entries.map((e) => [e.cacheKey, { response: e.response, digestOnly: e.digestOnly }]));
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
    const why = digestOnly ? 'digest-only' : this.seqHint !== this.liveSeq ? 'completed' : 'absent';
    this.misses.push({ model: request.model, seqHint: this.seqHint, why });
    return Promise.reject(
      new ReplayCacheMiss(
        why === 'digest-only'
          ? `model ${request.model}: the snapshot keeps only the digest of this response (over the cache's size cap)`
          : why === 'completed'
            ? `model ${request.model}: activation seq ${this.seqHint} completed before the snapshot was taken, and a completed activation's responses are not kept`
            : `model ${request.model}: the snapshot's replay cache holds no response for this request (evicted, expired, or a request the recorded run never made)`,
      ),
    );
  }
}
