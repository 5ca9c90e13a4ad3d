/**
 * Entry point of one baseline process: `node dist/bench/baseline/baseline-main.js forwarder|worker|effector`.
 * Each role runs in its own process with its own connection, as ingress, the activator and the effector do,
 * so the baseline competes for the same two cores the same way. Configured by environment
 * (see {@link BaselineEnv}); prints `baseline <role> ready` once consuming; SIGTERM drains and
 * exits; any failure exits with status 1.
 */
import { jetstream, jetstreamManager, type ConsumerMessages } from '@nats-io/jetstream';
import { Kvm } from '@nats-io/kv';
import { connect } from '@nats-io/transport-node';
import { applyServiceV8Flags } from '#config';
import { BaselineEnv } from './baseline-env.js';
import { startEffector } from './baseline-effector.js';
import { startForwarder } from './baseline-forwarder.js';
import { BaselineNames } from './baseline-topology.js';
import { startWorker } from './baseline-worker.js';

function numberFromEnv(name: string): number {
  const value = Number(process.env[name]);
  if (!Number.isFinite(value) || value < 0) throw new Error(`${name} must be a non-negative number, got '${process.env[name]}'`);
  return value;
}

async function main(): Promise<void> {
  // The same V8 flags as the runtime's services, as it gets the same node flags: both systems run the same Node.
  applyServiceV8Flags();
  const role = process.argv[2];
  if (role !== 'forwarder' && role !== 'worker' && role !== 'effector') throw new Error(`usage: baseline-main.js forwarder|worker|effector (got '${role}')`);
  const url = process.env[BaselineEnv.natsUrl];
  if (url === undefined) throw new Error(`${BaselineEnv.natsUrl} is required`);
  // The runtime's services connect with the client's defaults (async traces on); so does the baseline unless told otherwise.
  const nc = await connect({ servers: url, name: `bench-baseline-${role}`, noAsyncTraces: process.env[BaselineEnv.noAsyncTraces] === '1' });
  const js = jetstream(nc);
  const jsm = await jetstreamManager(nc);
  const fatal = (error: Error): void => {
    console.error(`baseline ${role} failed: ${error.stack ?? error.message}`);
    process.exit(1);
  };
  // Reads with direct gets when the bucket allows them, as the runtime's services do (bindBucket in
  // libs/transport): the same broker operation on both sides.
  const bindDirect = async (bucket: string) =>
    new Kvm(js).open(bucket, { bindOnly: true, allow_direct: (await jsm.streams.info(`KV_${bucket}`)).config.allow_direct === true });
  const partitions = numberFromEnv(BaselineEnv.partitions);
  const maxAckPending = numberFromEnv(BaselineEnv.maxAckPending);
  let streams: ConsumerMessages[];
  if (role === 'forwarder') {
    streams = [await startForwarder(jsm, js, { partitions, maxAckPending, onFatal: fatal })];
  } else if (role === 'effector') {
    const effects = await bindDirect(BaselineNames.effectsBucket);
    streams = [await startEffector(jsm, js, effects, { maxAckPending, onFatal: fatal })];
  } else {
    const kv = await bindDirect(BaselineNames.stateBucket);
    streams = await startWorker(jsm, js, kv, {
      partitions,
      maxAckPendingPerPartition: maxAckPending,
      modelLatencyMs: numberFromEnv(BaselineEnv.modelLatencyMs),
      onFatal: fatal,
    });
  }
  process.once('SIGTERM', () => {
    for (const messages of streams) messages.stop();
    nc.drain().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  });
  console.log(`baseline ${role} ready`);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
