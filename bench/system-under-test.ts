/**
 * What the load generator needs from a system it drives: where to publish an agent's events for
 * a key, where that agent's outputs appear, and the processes whose CPU time and liveness the
 * benchmark watches. The runtime (ingress + activator) and the bare-JetStream baseline both
 * implement it, so both are measured by the same code.
 */
import type { CpuParticipant } from './infra/process-cpu.js';

/** A system the benchmark drives: the runtime or the bare-JetStream baseline. */
export interface SystemUnderTest {
  /** `runtime` or `baseline`. */
  readonly name: SystemName;
  /** Subject an event for `agent` and key token `key` is published to. */
  eventSubject(agent: string, key: string): string;
  /** Subject the output of `agent` for key token `key` appears on. */
  outputSubject(agent: string, key: string): string;
  /** Wildcard covering every output of `agent`. */
  outputFilter(agent: string): string;
  /** KV bucket holding per-key state. */
  readonly stateBucket: string;
  /** KV key of `agent`'s state for key token `key`. */
  stateKey(agent: string, key: string): string;
  /** Wildcard of error records, if the system has any: one arriving fails the run. */
  readonly errorFilter: string | undefined;
  /** The system's processes (for CPU accounting). */
  readonly processes: readonly CpuParticipant[];
  /** Runtime only: how long its activators took to own the partitions as assigned, and how many each owns. */
  readonly ownership?: { readonly settledMs: number; readonly partitionsByMember: Readonly<Record<string, number>> };
  /** Runtime only: each service's ops listener (`/metrics`), by process name. */
  readonly opsUrls?: Readonly<Record<string, string>>;
  /** Rejects as soon as one of the system's processes exits on its own. */
  readonly failure: Promise<never>;
  /** The last lines each process printed (for failure messages). */
  describe(): string;
  /** Stops every process of the system. */
  stop(): Promise<void>;
}

/** The two systems the benchmark compares. */
export type SystemName = 'runtime' | 'baseline';
