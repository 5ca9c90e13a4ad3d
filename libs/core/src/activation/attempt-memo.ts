/**
 * Model responses obtained by attempts of one (key, seq) scope that did not commit because the
 * *commit* failed (a conflict, an outage, an ambiguous write). A retry of the same scope reuses
 * them, so an infrastructure retry makes zero additional provider calls (invariant 3) even though
 * the failed attempt's cache entries never reached the state document.
 *
 * Held in process memory only: a crash between the model call and the commit still pays again.
 * Entries are keyed by replay-cache key, which embeds the entity key and seq, so they can never
 * answer a different scope. The runtime clears a key's memo whenever that key commits anything.
 */
export class AttemptMemo {
  private readonly responses = new Map<string, Uint8Array>();

  get(cacheKey: string): Uint8Array | undefined {
    return this.responses.get(cacheKey);
  }

  set(cacheKey: string, response: Uint8Array): void {
    this.responses.set(cacheKey, response);
  }

  get size(): number {
    return this.responses.size;
  }
}
