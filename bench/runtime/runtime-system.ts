/**
 * The runtime as the benchmark drives it: the real ingress, activator (one or several) and, for
 * the round-trip phases, effector services, started from the build in `dist/` as separate
 * processes, configured only through their documented environment (`NATS_URL`,
 * `AGENTS_PARTITIONS`, `AGENTS_MODULES`, `AGENTS_MODEL_SCRIPT`, `AGENTS_TOOL_MODULES`, ...),
 * hosting the benchmark's agents. Events enter on `agents.events.<agent>.<key>` like any user's.
 * With several activators, start-up returns only once partition ownership has settled on the
 * rendezvous assignment, so a measurement never overlaps a hand-over.
 */
import { join } from 'node:path';
import { createTopology } from '#routing';
import { MODEL_LATENCY_ENV } from '../agents/bench-agents.js';
import { startNodeProcess, type NodeProcess } from '../infra/node-process.js';
import { watchExits } from '../infra/watch-exits.js';
import type { SystemUnderTest } from '../system-under-test.js';
import { ownershipSettled, parseOwnsLine } from './ownership-settle.js';

/** How long the activators may take to settle on the assignment. */
const SETTLE_TIMEOUT_MS = 90_000;

/** How to start the runtime. */
export interface RuntimeSystemOptions {
  readonly repoRoot: string;
  readonly natsUrl: string;
  readonly partitions: number;
  readonly modelLatencyMs: number;
  /** Activator processes (1 unless measuring the activators dimension). */
  readonly activators: number;
  /** Start the effector with the benchmark's no-op tool (round-trip phases). */
  readonly effector: boolean;
  /** `AGENTS_ACTIVATION_TIMEOUT_MS`, when set. */
  readonly activationTimeoutMs: number | undefined;
  /** Extra `node` flags for every service (e.g. `--cpu-prof`). */
  readonly nodeFlags: readonly string[];
  /** Extra environment for every service (experiments). */
  readonly extraEnv: Readonly<Record<string, string>>;
  /** Progress messages. */
  readonly log: (message: string) => void;
}

/** The member id of activator `i` (1-based): fixed, so the settle check knows the assignment. */
export function activatorMemberId(i: number): string {
  return `bench-activator-${i}`;
}

/**
 * Starts the activators, waits until they own the partitions as assigned, then the effector (if
 * asked) and ingress (as the integration harness orders them), and waits until all serve.
 *
 * @throws {Error} when a service exits or is not ready in time, or ownership does not settle.
 */
export async function startRuntimeSystem(options: RuntimeSystemOptions): Promise<SystemUnderTest> {
  const dist = join(options.repoRoot, 'dist');
  const agents = join(dist, 'bench', 'agents');
  const env: Record<string, string> = {
    NATS_URL: options.natsUrl,
    AGENTS_PARTITIONS: String(options.partitions),
    AGENTS_MODULES: ['noop.agent.js', 'model.agent.js', 'tool.agent.js'].map((f) => join(agents, f)).join(','),
    AGENTS_MODEL_SCRIPT: join(agents, 'model-script.js'),
    AGENTS_TOOL_MODULES: join(agents, 'noop.tool.js'),
    AGENTS_HTTP_PORT: '0',
    // Several services on one machine: every ops listener on a free port.
    AGENTS_OPS_PORT: '0',
    [MODEL_LATENCY_ENV]: String(options.modelLatencyMs),
    ...options.extraEnv,
  };
  if (options.activationTimeoutMs !== undefined) env.AGENTS_ACTIVATION_TIMEOUT_MS = String(options.activationTimeoutMs);
  const topology = createTopology({ partitions: options.partitions });
  const started: NodeProcess[] = [];
  const start = async (name: string, service: 'activator' | 'ingress' | 'effector', ready: RegExp, extra: Record<string, string> = {}): Promise<NodeProcess> => {
    const child = await startNodeProcess({
      name,
      script: join(dist, 'apps', service, 'src', 'main.js'),
      nodeFlags: options.nodeFlags,
      env: { ...env, ...extra },
      cwd: options.repoRoot,
      ready,
    });
    started.push(child);
    return child;
  };
  let ownershipSettledMs = 0;
  const reports = new Map<string, readonly number[]>();
  try {
    const members = Array.from({ length: options.activators }, (_, i) => activatorMemberId(i + 1));
    let settled: (() => void) | undefined;
    const listen = (line: string): void => {
      const owns = parseOwnsLine(line);
      if (owns === undefined) return;
      reports.set(owns.member, owns.partitions);
      if (ownershipSettled(reports, members, options.partitions)) settled?.();
    };
    const settledOnce = new Promise<void>((resolve) => {
      settled = resolve;
    });
    const began = performance.now();
    for (const [i, member] of members.entries()) {
      const name = options.activators === 1 ? 'activator' : `activator-${i + 1}`;
      const child = await start(name, 'activator', /owns \d+ partitions/, { AGENTS_INSTANCE_ID: member });
      for (const line of child.tail()) listen(line);
      child.onLine(listen);
    }
    const timeout = new Promise<never>((_resolve, reject) => {
      setTimeout(() => reject(new Error(`partition ownership did not settle on the assignment within ${SETTLE_TIMEOUT_MS} ms: ${JSON.stringify(Object.fromEntries(reports))}`)), SETTLE_TIMEOUT_MS).unref();
    });
    const exits = watchExits(started);
    await Promise.race([settledOnce, timeout, exits.failure]);
    exits.disarm();
    ownershipSettledMs = performance.now() - began;
    if (options.activators > 1) {
      const shares = members.map((m) => `${m} ${reports.get(m)?.length ?? 0}`).join(', ');
      options.log(`${options.activators} activators own the ${options.partitions} partitions as assigned after ${(ownershipSettledMs / 1_000).toFixed(1)} s (${shares})`);
    }
    if (options.effector) await start('effector', 'effector', /effector (connected|consuming)/);
    await start('ingress', 'ingress', /HTTP listening on /);
  } catch (error) {
    await Promise.all(started.map((p) => p.stop()));
    throw error;
  }
  const exits = watchExits(started);
  const opsUrls: Record<string, string> = {};
  for (const child of started) {
    const url = child.tail().map((line) => /ops listening on (http:\/\/\S+)/.exec(line)?.[1]).find((u) => u !== undefined);
    if (url !== undefined) opsUrls[child.name] = url;
  }
  return {
    name: 'runtime',
    opsUrls,
    eventSubject: (agent, key) => topology.events(agent, key),
    outputSubject: (agent, key) => topology.output(agent, key),
    outputFilter: (agent) => `${topology.prefix}.output.${agent}.>`,
    stateBucket: topology.buckets.state,
    stateKey: (agent, key) => topology.stateKey(agent, key),
    errorFilter: `${topology.prefix}.errors.>`,
    processes: started.map((p) => ({ name: p.name, pid: p.pid })),
    ownership: { settledMs: ownershipSettledMs, partitionsByMember: Object.fromEntries([...reports].map(([member, partitions]) => [member, partitions.length])) },
    failure: exits.failure,
    describe: () => started.map((p) => `--- ${p.name} (last lines) ---\n${p.tail().slice(-20).join('\n')}`).join('\n'),
    stop: async () => {
      exits.disarm();
      // Ingress first, so nothing new reaches the inbox while the activators drain; the effector last.
      const order = ['ingress', ...started.filter((p) => p.name.startsWith('activator')).map((p) => p.name), 'effector'];
      for (const name of order) await started.find((p) => p.name === name)?.stop();
    },
  };
}
