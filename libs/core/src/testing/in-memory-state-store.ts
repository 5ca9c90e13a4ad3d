/**
 * An in-memory {@link StateStore} with the semantics of the JetStream KV bucket it stands in for:
 * values are bytes, revisions are one bucket-wide increasing sequence, `commit` is a real
 * compare-and-set, and `load` decodes through the production codec (so a document from a future
 * schema fails the read exactly as it does in the service). A fault hook fails the Nth commit
 * either before it writes or after it wrote (the ambiguous case). No clock, no randomness.
 */
import type { ActorDocument } from '../actor/actor-document.js';
import { decodeActorDocument } from '../actor/state-codec.js';
import { CommitConflict, type StateStore, type StoredActor } from '../actor/state-store.js';
import { RetryableError } from '../errors/runtime-error.js';

/** Where an injected commit failure strikes. */
export type CommitFault =
  /** The commit throws and nothing is written. */
  | 'before-write'
  /** The value is written, then the commit throws anyway (a lost reply: ambiguous to the caller). */
  | 'after-write';

/** The injected outage (what `StateStoreUnavailable` is in the services: retryable, maybe written). */
export class InjectedStoreFault extends RetryableError {
  override readonly name = 'InjectedStoreFault';
}

interface StoredValue {
  readonly bytes: Uint8Array;
  readonly revision: number;
}

/** One successful write, in order (commits and seeded values). */
export interface StoreWrite {
  readonly stateKey: string;
  readonly bytes: Uint8Array;
  readonly revision: number;
}

/**
 * The KV-like store of the runtime specs. Seed or overwrite values with {@link InMemoryStateStore.put}
 * (another owner's write), inject faults with {@link InMemoryStateStore.failCommit}.
 */
export class InMemoryStateStore implements StateStore {
  private readonly values = new Map<string, StoredValue>();
  private readonly faults = new Map<number, CommitFault>();
  private lastRevision = 0;
  private commitCalls = 0;
  private loadCalls = 0;
  /** Every write that landed, in order. */
  readonly writes: StoreWrite[] = [];
  /** The bytes of every `commit` call, in order, refused and failed ones included (a retry's bytes can be compared with the first try's). */
  readonly attempts: Uint8Array[] = [];

  /** Makes the `nth` call of `commit` (1-based, counted over all keys) fail as `fault`. */
  failCommit(nth: number, fault: CommitFault): this {
    this.faults.set(nth, fault);
    return this;
  }

  async load(stateKey: string): Promise<StoredActor | undefined> {
    this.loadCalls += 1;
    const stored = this.values.get(stateKey);
    if (stored === undefined) return undefined;
    return { doc: decodeActorDocument(stored.bytes.slice()), revision: stored.revision, bytes: stored.bytes.length };
  }

  async commit(stateKey: string, bytes: Uint8Array, expectedRevision: number | undefined): Promise<number> {
    this.commitCalls += 1;
    this.attempts.push(bytes.slice());
    const fault = this.faults.get(this.commitCalls);
    if (fault === 'before-write') throw new InjectedStoreFault(`injected failure before writing ${stateKey} (commit #${this.commitCalls})`);
    const current = this.values.get(stateKey);
    if (current?.revision !== expectedRevision) {
      throw new CommitConflict(`state of ${stateKey} is at revision ${current?.revision ?? 'absent'}, expected ${expectedRevision ?? 'absent'}`);
    }
    const revision = this.write(stateKey, bytes);
    if (fault === 'after-write') throw new InjectedStoreFault(`injected failure after writing ${stateKey} (commit #${this.commitCalls})`);
    return revision;
  }

  /** Writes `bytes` unconditionally (another owner, a seeded or hand-made document); returns the revision. */
  put(stateKey: string, bytes: Uint8Array): number {
    return this.write(stateKey, bytes);
  }

  /** The stored bytes of `stateKey` (a copy), or undefined. */
  bytes(stateKey: string): Uint8Array | undefined {
    return this.values.get(stateKey)?.bytes.slice();
  }

  /** The stored document of `stateKey`, decoded, or undefined. */
  doc(stateKey: string): ActorDocument | undefined {
    const bytes = this.values.get(stateKey)?.bytes;
    return bytes === undefined ? undefined : decodeActorDocument(bytes.slice());
  }

  revision(stateKey: string): number | undefined {
    return this.values.get(stateKey)?.revision;
  }

  /** How often `commit` was called, failed calls included. */
  get commits(): number {
    return this.commitCalls;
  }

  /** How often `load` was called. */
  get loads(): number {
    return this.loadCalls;
  }

  private write(stateKey: string, bytes: Uint8Array): number {
    this.lastRevision += 1;
    const copy = Uint8Array.from(bytes);
    this.values.set(stateKey, { bytes: copy, revision: this.lastRevision });
    this.writes.push({ stateKey, bytes: copy, revision: this.lastRevision });
    return this.lastRevision;
  }
}
