/**
 * The bare-JetStream baseline as the benchmark drives it: its streams and buckets provisioned on
 * the same server (idempotently: a restart finds them), then a worker process, an effector
 * process for the round-trip phases, and a forwarder process (see `baseline-main.ts`).
 */
import { jetstreamManager } from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/transport-node';
import { join } from 'node:path';
import { startNodeProcess, type NodeProcess } from '../infra/node-process.js';
import { watchExits } from '../infra/watch-exits.js';
import type { SystemUnderTest } from '../system-under-test.js';
import { BaselineEnv, type BaselineRole } from './baseline-env.js';
import { baselineEventSubject, BaselineNames, baselineOutputSubject, BASELINE_PREFIX, baselineStateKey, provisionBaseline } from './baseline-topology.js';

/** How to start the baseline. */
export interface BaselineSystemOptions {
  readonly repoRoot: string;
  readonly natsUrl: string;
  /** Inbox partitions, one filtered consumer each (1: a single unfiltered consumer). */
  readonly partitions: number;
  /** max_ack_pending of the forwarder's consumer (the runtime's ingress default). */
  readonly forwarderMaxAckPending: number;
  /** max_ack_pending of each worker consumer. */
  readonly workerMaxAckPending: number;
  /** Start the effector role (round-trip phases). */
  readonly effector: boolean;
  /** max_ack_pending of the effector's consumer (the runtime's `effector.maxInFlight`). */
  readonly effectorMaxAckPending: number;
  /** TTL of the effects bucket (the runtime's `effector.resultTtlMs`). */
  readonly effectsTtlMs: number;
  readonly modelLatencyMs: number;
  /** Stream settings copied from the runtime's configuration defaults. */
  readonly duplicateWindowMs: number;
  readonly maxAgeMs: number;
  /** Connect with the client's `noAsyncTraces`, as the runtime's services do (false: the client's default async traces). */
  readonly noAsyncTraces: boolean;
  readonly nodeFlags: readonly string[];
}

/** Provisions the baseline and starts its two processes. */
export async function startBaselineSystem(nc: NatsConnection, options: BaselineSystemOptions): Promise<SystemUnderTest> {
  await provisionBaseline(nc, await jetstreamManager(nc), { duplicateWindowMs: options.duplicateWindowMs, maxAgeMs: options.maxAgeMs, effectsTtlMs: options.effectsTtlMs });
  const started: NodeProcess[] = [];
  const start = async (role: BaselineRole, maxAckPending: number): Promise<void> => {
    started.push(
      await startNodeProcess({
        name: `baseline-${role}`,
        script: join(options.repoRoot, 'dist', 'bench', 'baseline', 'baseline-main.js'),
        args: [role],
        nodeFlags: options.nodeFlags,
        env: {
          [BaselineEnv.natsUrl]: options.natsUrl,
          [BaselineEnv.partitions]: String(options.partitions),
          [BaselineEnv.maxAckPending]: String(maxAckPending),
          [BaselineEnv.modelLatencyMs]: String(options.modelLatencyMs),
          [BaselineEnv.noAsyncTraces]: options.noAsyncTraces ? '1' : '0',
        },
        cwd: options.repoRoot,
        ready: new RegExp(`^baseline ${role} ready`),
      }),
    );
  };
  try {
    await start('worker', options.workerMaxAckPending);
    if (options.effector) await start('effector', options.effectorMaxAckPending);
    await start('forwarder', options.forwarderMaxAckPending);
  } catch (error) {
    await Promise.all(started.map((p) => p.stop()));
    throw error;
  }
  const exits = watchExits(started);
  return {
    name: 'baseline',
    eventSubject: baselineEventSubject,
    outputSubject: baselineOutputSubject,
    outputFilter: (agent) => `${BASELINE_PREFIX}.output.${agent}.>`,
    stateBucket: BaselineNames.stateBucket,
    stateKey: baselineStateKey,
    errorFilter: undefined,
    processes: started.map((p) => ({ name: p.name, pid: p.pid })),
    failure: exits.failure,
    describe: () => started.map((p) => `--- ${p.name} (last lines) ---\n${p.tail().slice(-20).join('\n')}`).join('\n'),
    stop: async () => {
      exits.disarm();
      for (const name of ['baseline-forwarder', 'baseline-worker', 'baseline-effector']) await started.find((p) => p.name === name)?.stop();
    },
  };
}
