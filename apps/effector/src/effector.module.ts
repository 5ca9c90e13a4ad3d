import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { Module } from '@nestjs/common';
import type { AnyToolDefinition, ClusterKeys, OutboxPublisher } from '#core';
import { loadClusterKeys, loadConfig, loadToolModules, RUNTIME_CONFIG, type RuntimeConfig } from '#config';
import { createTopology, type Topology } from '#routing';
import { currentTracing, EffectorMetrics, TelemetryModule } from '#telemetry';
import { EntityPauses, JetStreamOutboxPublisher, NATS_CLIENT_NAME, NatsService, natsServiceProvider, PROVISIONING, provision, TOPOLOGY } from '#transport';
import type { DedupStore } from './dedup/dedup-store.js';
import { KvDedupStore } from './dedup/kv-dedup-store.js';
import { DEDUP_STORE, EFFECTOR_METRICS, ENTITY_PAUSES, INTENT_PROCESSOR, KEYRING, RESULT_PUBLISHER, TOOL_CATALOG } from './effector.tokens.js';
import { EffectorService } from './effector.service.js';
import { loadKeyring } from './keyring.js';
import { MetricsEffectorObserver } from './metrics-effector-observer.js';
import { createSecretResolver } from './secret-resolver.js';
import { TracedIntentProcessor } from './telemetry/traced-intent-processor.js';
import { buildToolCatalog } from './tool-catalog.js';

const readText = (path: string): string => readFileSync(path, 'utf8');

/**
 * The effector's composition root. Configuration, tool modules, the keyring and provisioning
 * (including the effects bucket's TTL, `effector.resultTtlMs`) are resolved while the module is
 * built, so a bad tool module, a verifying mode without a keyring or an unreachable server fails
 * the start, not the first intent.
 */
@Module({
  imports: [TelemetryModule.forService('effector')],
  providers: [
    { provide: RUNTIME_CONFIG, useFactory: (): RuntimeConfig => loadConfig({ env: process.env }) },
    { provide: NATS_CLIENT_NAME, useValue: 'effector' },
    {
      provide: TOPOLOGY,
      inject: [RUNTIME_CONFIG],
      useFactory: (config: RuntimeConfig) => createTopology({ prefix: config.prefix, partitions: config.partitions }),
    },
    natsServiceProvider,
    {
      provide: PROVISIONING,
      inject: [NatsService, TOPOLOGY, RUNTIME_CONFIG],
      useFactory: (nats: NatsService, topology: Topology, config: RuntimeConfig) =>
        provision(nats.nc, nats.jsm, topology, config.streams, { effectsTtlMs: config.effector.resultTtlMs }),
    },
    {
      provide: TOOL_CATALOG,
      inject: [RUNTIME_CONFIG],
      useFactory: async (config: RuntimeConfig) =>
        buildToolCatalog({
          loaded: await loadToolModules(config.effector.toolModules, process.cwd()),
          httpToolUrl: config.effector.httpToolUrl,
          leaseMs: config.effector.leaseMs,
          toolTimeoutMs: config.effector.toolTimeoutMs,
        }),
    },
    {
      provide: KEYRING,
      inject: [RUNTIME_CONFIG],
      // The cluster keys: the keyring verifies intents (as KeyObjects, built once), the active key
      // (signing.keyId) seals results. loadKeyring refuses a verifying mode without a keyring.
      useFactory: (config: RuntimeConfig): ClusterKeys => {
        const sources = { env: process.env, readFile: readText };
        loadKeyring(config, sources);
        return loadClusterKeys(config.signing, sources);
      },
    },
    {
      provide: DEDUP_STORE,
      inject: [NatsService, TOPOLOGY, PROVISIONING],
      useFactory: async (nats: NatsService, topology: Topology): Promise<DedupStore> => new KvDedupStore(await nats.bucket(topology.buckets.effects), nats.acks, topology.buckets.effects, () => Date.now()),
    },
    {
      provide: RESULT_PUBLISHER,
      inject: [NatsService],
      useFactory: (nats: NatsService): OutboxPublisher => new JetStreamOutboxPublisher(nats.acks),
    },
    { provide: EFFECTOR_METRICS, useFactory: () => new EffectorMetrics() },
    {
      provide: ENTITY_PAUSES,
      inject: [NatsService, TOPOLOGY, PROVISIONING],
      useFactory: async (nats: NatsService, topology: Topology): Promise<EntityPauses> =>
        EntityPauses.open(await nats.bucket(topology.buckets.erasures), nats.jsm, topology.buckets.erasures),
    },
    {
      provide: INTENT_PROCESSOR,
      inject: [RUNTIME_CONFIG, TOPOLOGY, TOOL_CATALOG, KEYRING, DEDUP_STORE, RESULT_PUBLISHER, EFFECTOR_METRICS, ENTITY_PAUSES],
      useFactory: (
        config: RuntimeConfig,
        topology: Topology,
        tools: Map<string, AnyToolDefinition>,
        keys: ClusterKeys,
        store: DedupStore,
        publisher: OutboxPublisher,
        metrics: EffectorMetrics,
        pauses: EntityPauses,
      ) =>
        new TracedIntentProcessor({
          store,
          publisher,
          topology,
          tools,
          verification: config.effector.verification,
          keyring: keys.verifying,
          sealing: keys,
          clock: { nowMs: () => Date.now(), monotonicMs: () => performance.now() },
          timers: {
            setTimeout: (callback, ms) => {
              const handle = setTimeout(callback, ms);
              return () => clearTimeout(handle);
            },
          },
          random: Math.random,
          newToken: randomUUID,
          secret: createSecretResolver({ env: process.env, readFile: readText }),
          observer: new MetricsEffectorObserver(metrics),
          leaseMs: config.effector.leaseMs,
          resultTtlMs: config.effector.resultTtlMs,
          toolTimeoutMs: config.effector.toolTimeoutMs,
          maxResultBytes: config.ingress.maxEventBytes,
          paused: (entityKey) => pauses.isKeyPaused(entityKey),
        }, metrics, currentTracing() ?? { enabled: false, parentBased: false }),
    },
    EffectorService,
  ],
})
export class EffectorModule {}
