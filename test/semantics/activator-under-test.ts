/**
 * Builds the real ActivatorModule in-process with Nest's testing module, against a private
 * nats-server, with the seams the gates need: the agent catalog, the model provider (a FakeLlm
 * the test inspects) and a wrapper around the real KV state store (to inject faults).
 */
import type { INestApplication } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { AGENT_CATALOG, loadConfig, RUNTIME_CONFIG } from '#config';
import type { AgentDefinition, LongTermStore, ModelProvider, StateStore } from '#core';
import type { Topology } from '#routing';
import { KvStateStore, NatsService, PROVISIONING, TOPOLOGY } from '#transport';
import type { RuntimeMetrics } from '#telemetry';
import { ActivatorModule } from '../../apps/activator/src/activator.module.js';
import { LONGTERM_STORE, MODEL_PROVIDER, RUNTIME_METRICS, STATE_STORE } from '../../apps/activator/src/activator.tokens.js';

export interface ActivatorUnderTest {
  readonly app: INestApplication;
  readonly metrics: RuntimeMetrics;
  close(): Promise<void>;
}

export async function startActivatorInProcess(options: {
  readonly natsUrl: string;
  readonly agents: readonly AgentDefinition[];
  readonly provider: ModelProvider;
  readonly wrapStore?: (store: StateStore) => StateStore;
  /** The long-term tier the activations flush to (default: off). */
  readonly longterm?: LongTermStore;
  readonly partitions?: number;
}): Promise<ActivatorUnderTest> {
  const config = loadConfig({ env: { NATS_URL: options.natsUrl, AGENTS_PARTITIONS: String(options.partitions ?? 4) } });
  const moduleRef = await Test.createTestingModule({ imports: [ActivatorModule] })
    .overrideProvider(RUNTIME_CONFIG)
    .useValue(config)
    .overrideProvider(AGENT_CATALOG)
    .useValue(new Map(options.agents.map((a) => [a.name, a])))
    .overrideProvider(MODEL_PROVIDER)
    .useValue(options.provider)
    .overrideProvider(STATE_STORE)
    .useFactory({
      inject: [NatsService, TOPOLOGY, PROVISIONING],
      factory: async (nats: NatsService, topology: Topology) => {
        const store = new KvStateStore(await nats.bucket(topology.buckets.state), nats.acks, topology.buckets.state);
        return options.wrapStore ? options.wrapStore(store) : store;
      },
    })
    .overrideProvider(LONGTERM_STORE)
    .useValue(options.longterm ?? null)
    .compile();
  const app = moduleRef.createNestApplication({ logger: ['error', 'warn'] });
  await app.init();
  return { app, metrics: app.get<RuntimeMetrics>(RUNTIME_METRICS), close: () => app.close() };
}
