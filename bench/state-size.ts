/**
 * How big a key's stored state is after a run (one sample key per agent): the runtime writes
 * its whole actor document on every commit, the baseline a fixed ~512-byte value, and the size
 * is what each KV update costs the server.
 */
import { Kvm } from '@nats-io/kv';
import type { NatsConnection } from '@nats-io/transport-node';
import type { SystemUnderTest } from './system-under-test.js';

/** Bytes of `system`'s stored state for key token `key`, per agent; agents without state there are left out. */
export async function storedStateBytes(nc: NatsConnection, system: SystemUnderTest, agents: readonly string[], key: string): Promise<Record<string, number>> {
  const kv = await new Kvm(nc).open(system.stateBucket, { bindOnly: true });
  const sizes: Record<string, number> = {};
  for (const agent of agents) {
    const entry = await kv.get(system.stateKey(agent, key));
    if (entry !== null) sizes[agent] = entry.value.length;
  }
  return sizes;
}
