/**
 * `npm run bench`: one run, one private nats-server, two systems measured the same way.
 *
 * 1. Start a private nats-server (free loopback ports, temp store, max_payload 8 MiB).
 * 2. For each system (the runtime's ingress + activator processes, then the bare-JetStream
 *    baseline's forwarder + worker processes): start it, run the four phases (see `phases.ts`),
 *    record a sample key's stored state size, stop it.
 * 3. Compare, write `bench/results/<timestamp>.json` and `bench/results/latest.md`, print the
 *    markdown on stdout (progress goes to stderr). Any missing output, error record or dead
 *    process fails the run with a non-zero exit.
 */
import { jetstream, jetstreamManager } from '@nats-io/jetstream';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { MODEL_AGENT, NOOP_AGENT } from './agents/bench-agents.js';
import { startBaselineSystem } from './baseline/baseline-system.js';
import { parseBenchOptions, type BenchOptions } from './bench-options.js';
import { machineFacts } from './infra/machine-facts.js';
import { startNatsServer, type BenchNatsServer } from './infra/nats-server.js';
import { planPhases, runPhase } from './phases.js';
import { RESULT_FORMAT, type BenchResult, type PhaseResult, type SystemResult } from './report/bench-result.js';
import { compareSystems } from './report/compare-systems.js';
import { renderMarkdown } from './report/markdown-report.js';
import { writeResults } from './report/write-results.js';
import { startRuntimeSystem } from './runtime/runtime-system.js';
import { storedStateBytes } from './state-size.js';
import type { SystemName, SystemUnderTest } from './system-under-test.js';

/** The repository root (this file runs from `dist/bench/run.js`). */
const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');

const log = (message: string): void => {
  process.stderr.write(`[bench ${new Date().toISOString().slice(11, 19)}] ${message}\n`);
};

async function startSystem(name: SystemName, server: BenchNatsServer, options: BenchOptions, nc: NatsConnection): Promise<SystemUnderTest> {
  if (name === 'runtime') {
    return startRuntimeSystem({
      repoRoot: REPO_ROOT,
      natsUrl: server.url,
      partitions: options.partitions,
      modelLatencyMs: options.modelLatencyMs,
      activationTimeoutMs: options.activationTimeoutMs,
      nodeFlags: options.nodeFlags,
      extraEnv: options.serviceEnv,
    });
  }
  return startBaselineSystem(nc, {
    repoRoot: REPO_ROOT,
    natsUrl: server.url,
    partitions: options.baselinePartitions,
    forwarderMaxAckPending: options.runtimeDefaults.ingress.maxAckPending,
    // The runtime's total in-flight capacity (P × max_ack_pending), spread over the baseline's consumers.
    workerMaxAckPending: Math.ceil((options.partitions * options.runtimeDefaults.activator.maxAckPending) / options.baselinePartitions),
    modelLatencyMs: options.modelLatencyMs,
    duplicateWindowMs: options.runtimeDefaults.streams.duplicateWindowMs,
    maxAgeMs: options.runtimeDefaults.streams.inboxMaxAgeMs,
    noAsyncTraces: options.baselineNoAsyncTraces,
    nodeFlags: options.nodeFlags,
  });
}

async function main(): Promise<void> {
  const options = parseBenchOptions(process.argv, join(REPO_ROOT, 'bench', 'results'));
  const startedAt = new Date().toISOString();
  const machine = machineFacts(REPO_ROOT);
  log(`${machine.cpuModel} × ${machine.cores}, Node ${machine.node}, nats-server ${machine.natsServer}`);
  const server = await startNatsServer();
  log(`private nats-server at ${server.url} (store ${server.dir})`);
  const nc = await connect({ servers: server.url, name: 'bench-load-generator' });
  const js = jetstream(nc);
  const jsm = await jetstreamManager(nc);
  const plans = planPhases(options);
  const systems: SystemResult[] = [];
  let running: SystemUnderTest | undefined;
  try {
    for (const name of options.systems) {
      log(`starting ${name}`);
      running = await startSystem(name, server, options, nc);
      const phases: PhaseResult[] = [];
      for (const plan of plans) {
        phases.push(
          await runPhase(
            {
              nc,
              js,
              jsm,
              system: running,
              sharedParticipants: [
                { name: 'nats-server', pid: server.pid },
                { name: 'load-generator', pid: process.pid },
              ],
              stallTimeoutMs: options.stallTimeoutMs,
              log,
            },
            plan,
          ),
        );
      }
      const sampleKey = plans.find((p) => p.phase.endsWith('-throughput'))?.keys[0];
      const stateBytes = sampleKey === undefined ? {} : await storedStateBytes(nc, running, [NOOP_AGENT, MODEL_AGENT], sampleKey);
      systems.push({ system: name, partitions: name === 'runtime' ? options.partitions : options.baselinePartitions, phases, stateBytes });
      log(`stopping ${name}`);
      await running.stop();
      running = undefined;
    }
  } finally {
    await running?.stop().catch(() => undefined);
    await nc.close().catch(() => undefined);
    await server.stop();
  }

  const runtime = systems.find((s) => s.system === 'runtime');
  const baseline = systems.find((s) => s.system === 'baseline');
  const result: BenchResult = {
    format: RESULT_FORMAT,
    startedAt,
    finishedAt: new Date().toISOString(),
    machine,
    options,
    systems,
    comparison: runtime !== undefined && baseline !== undefined ? compareSystems(runtime, baseline) : undefined,
  };
  const markdown = renderMarkdown(result);
  const written = await writeResults(options.resultsDir, result, markdown);
  process.stdout.write(markdown);
  log(`wrote ${written.json} and ${written.markdown}`);
}

main().catch((error: unknown) => {
  log(`FAILED: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
  process.exit(1);
});
