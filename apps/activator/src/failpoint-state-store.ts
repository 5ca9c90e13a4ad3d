import type { StateStore, StoredActor } from '#core';

/** Where a failpoint fires relative to the Nth successful commit of this process. */
export type FailpointPlace = 'before-commit' | 'after-commit';

/** One parsed failpoint: SIGKILL this process at `place` of commit number `nth`. */
export interface Failpoint {
  readonly place: FailpointPlace;
  readonly nth: number;
}

/**
 * Parses `AGENTS_FAILPOINTS` (`kill-after-commit:3,kill-before-commit:7`). Failpoints exist for
 * chaos tests of crash recovery: they kill the process with SIGKILL at an exact point of the
 * commit protocol, which a test cannot hit reliably from outside. Never set them in production.
 */
export function parseFailpoints(spec: string | undefined): Failpoint[] {
  if (spec === undefined || spec.trim() === '') return [];
  return spec.split(',').map((part) => {
    const match = /^kill-(before|after)-commit:(\d+)$/.exec(part.trim());
    if (match === null) throw new Error(`AGENTS_FAILPOINTS: cannot parse '${part}' (kill-before-commit:N | kill-after-commit:N)`);
    return { place: match[1] === 'before' ? 'before-commit' : 'after-commit', nth: Number(match[2]) };
  });
}

/**
 * Wraps the state store with failpoints: the process dies with SIGKILL (no shutdown hooks, no
 * acks, no publishes) right before or right after its Nth commit reaches the store.
 */
export class FailpointStateStore implements StateStore {
  private commits = 0;

  constructor(
    private readonly inner: StateStore,
    private readonly failpoints: readonly Failpoint[],
    private readonly kill: () => void = () => process.kill(process.pid, 'SIGKILL'),
  ) {}

  load(stateKey: string): Promise<StoredActor | undefined> {
    return this.inner.load(stateKey);
  }

  async commit(stateKey: string, bytes: Uint8Array, expectedRevision: number | undefined): Promise<number> {
    const nth = this.commits + 1;
    if (this.failpoints.some((f) => f.place === 'before-commit' && f.nth === nth)) this.kill();
    const revision = await this.inner.commit(stateKey, bytes, expectedRevision);
    this.commits = nth;
    if (this.failpoints.some((f) => f.place === 'after-commit' && f.nth === nth)) this.kill();
    return revision;
  }
}
