/**
 * What the console's views read and act through: its one NATS connection (its own
 * least-privilege user, see docs/console.md), the deployment's topology and a client for the
 * actions (approval decisions, redrive, erasure requests).
 */
import type { JetStreamClient, JetStreamManager } from '@nats-io/jetstream';
import type { KV } from '@nats-io/kv';
import type { AgentsClient } from '#client';
import type { Topology } from '#routing';

/** The handles every view takes. */
export interface ConsoleNats {
  readonly topology: Topology;
  readonly js: JetStreamClient;
  readonly jsm: JetStreamManager;
  readonly client: AgentsClient;
  readonly state: KV;
  readonly leases: KV;
  readonly members: KV;
  /** At most this many stored messages per stream for one view. */
  readonly maxMessages: number;
}

const lossy = new TextDecoder();

/** A key's bytes as the page shows them (UTF-8, replacement characters for binary keys). */
export function keyText(key: Uint8Array): string {
  return lossy.decode(key);
}
