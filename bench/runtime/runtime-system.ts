/**
 * The runtime as the benchmark drives it: the real ingress and activator services, started from
 * the build in `dist/` as separate processes, configured only through their documented
 * environment (`NATS_URL`, `AGENTS_PARTITIONS`, `AGENTS_MODULES`, `AGENTS_MODEL_SCRIPT`, ...),
 * hosting the benchmark's agents. Events enter on `agents.events.<agent>.<key>` like any user's.
 */
import { join } from 'node:path';
import { createTopology } from '#routing';
import { MODEL_LATENCY_ENV } from '../agents/bench-agents.js';
import { startNodeProcess, type NodeProcess } from '../infra/node-process.js';
import { watchExits } from '../infra/watch-exits.js';
import type { SystemUnderTest } from '../system-under-test.js';

/** How to start the runtime. */
export interface RuntimeSystemOptions {
  readonly repoRoot: string;
  readonly natsUrl: string;
  readonly partitions: number;
  readonly modelLatencyMs: number;
  /** `AGENTS_ACTIVATION_TIMEOUT_MS`, when set. */
  readonly activationTimeoutMs: number | undefined;
  /** Extra `node` flags for both services (e.g. `--cpu-prof`). */
  readonly nodeFlags: readonly string[];
  /** Extra environment for both services (experiments). */
  readonly extraEnv: Readonly<Record<string, string>>;
}

/** Starts the activator, then ingress (as the integration harness does), and waits until both serve. */
export async function startRuntimeSystem(options: RuntimeSystemOptions): Promise<SystemUnderTest> {
  const dist = join(options.repoRoot, 'dist');
  const env: Record<string, string> = {
    NATS_URL: options.natsUrl,
    AGENTS_PARTITIONS: String(options.partitions),
    AGENTS_MODULES: [join(dist, 'bench', 'agents', 'noop.agent.js'), join(dist, 'bench', 'agents', 'model.agent.js')].join(','),
    AGENTS_MODEL_SCRIPT: join(dist, 'bench', 'agents', 'model-script.js'),
    AGENTS_HTTP_PORT: '0',
    [MODEL_LATENCY_ENV]: String(options.modelLatencyMs),
    ...options.extraEnv,
  };
  if (options.activationTimeoutMs !== undefined) env.AGENTS_ACTIVATION_TIMEOUT_MS = String(options.activationTimeoutMs);
  const topology = createTopology({ partitions: options.partitions });
  const started: NodeProcess[] = [];
  const start = async (name: 'activator' | 'ingress', ready: RegExp): Promise<void> => {
    started.push(
      await startNodeProcess({
        name,
        script: join(dist, 'apps', name, 'src', 'main.js'),
        nodeFlags: options.nodeFlags,
        env,
        cwd: options.repoRoot,
        ready,
      }),
    );
  };
  try {
    await start('activator', /owns \d+ partitions/);
    await start('ingress', /HTTP listening on /);
  } catch (error) {
    await Promise.all(started.map((p) => p.stop()));
    throw error;
  }
  const exits = watchExits(started);
  return {
    name: 'runtime',
    eventSubject: (agent, key) => topology.events(agent, key),
    outputSubject: (agent, key) => topology.output(agent, key),
    outputFilter: (agent) => `${topology.prefix}.output.${agent}.>`,
    stateBucket: topology.buckets.state,
    stateKey: (agent, key) => topology.stateKey(agent, key),
    errorFilter: `${topology.prefix}.errors.>`,
    processes: started.map((p) => ({ name: p.name, pid: p.pid })),
    failure: exits.failure,
    describe: () => started.map((p) => `--- ${p.name} (last lines) ---\n${p.tail().slice(-20).join('\n')}`).join('\n'),
    stop: async () => {
      exits.disarm();
      // Ingress first, so nothing new reaches the inbox while the activator drains.
      for (const name of ['ingress', 'activator']) await started.find((p) => p.name === name)?.stop();
    },
  };
}
