import type { FactoryProvider } from '@nestjs/common';
import { RUNTIME_CONFIG, type RuntimeConfig } from '#config';
import type { Topology } from '#routing';
import { provision, type ProvisionReport } from '../provisioner.js';
import { NATS_CLIENT_NAME, NatsService } from './nats.service.js';

/** Injection token of the service's topology (subjects, streams, buckets). */
export const TOPOLOGY = Symbol.for('nats-agents.topology');

/** Injection token of the provisioning report (streams and buckets exist once it resolves). */
export const PROVISIONING = Symbol.for('nats-agents.provisioning');

/**
 * The connected {@link NatsService}: connecting is part of building the provider, so everything
 * that injects it can use the connection in its own factory.
 */
export const natsServiceProvider: FactoryProvider<NatsService> = {
  provide: NatsService,
  inject: [RUNTIME_CONFIG, NATS_CLIENT_NAME],
  useFactory: async (config: RuntimeConfig, name: string) => {
    const service = new NatsService(config, name);
    await service.connect();
    return service;
  },
};

/**
 * Provisions streams and buckets (idempotently) before any provider that depends on
 * {@link PROVISIONING} is built, so a service never touches a bucket that does not exist yet.
 */
export const provisioningProvider: FactoryProvider<Promise<ProvisionReport>> = {
  provide: PROVISIONING,
  inject: [NatsService, TOPOLOGY, RUNTIME_CONFIG],
  useFactory: (nats: NatsService, topology: Topology, config: RuntimeConfig) =>
    provision(nats.nc, nats.jsm, topology, config.streams, { effectsTtlMs: config.effector.resultTtlMs, leaseTtlMs: config.activator.leaseTtlMs }),
};
