import { Logger, Module } from '@nestjs/common';
import { createAuthenticator } from '#auth';
import { readFileSync } from 'node:fs';
import { AGENT_CATALOG, loadAgentModules, loadClusterKeys, loadConfig, RUNTIME_CONFIG, type RuntimeConfig } from '#config';
import { createTopology } from '#routing';
import { IngressMetrics, TelemetryModule } from '#telemetry';
import { NATS_CLIENT_NAME, natsServiceProvider, provisioningProvider, TOPOLOGY } from '#transport';
import { EventsController } from './events.controller.js';
import { IngressService } from './ingress.service.js';
import { CLUSTER_KEYS, EDGE_POLICY, INGRESS_METRICS } from './ingress.tokens.js';
import type { EdgePolicy } from './http/edge-admission.js';

/** Ingress composition root: config, agent catalog (names and validators), NATS, consumer, HTTP and its credentials. */
@Module({
  imports: [TelemetryModule.forService('ingress')],
  controllers: [EventsController],
  providers: [
    { provide: RUNTIME_CONFIG, useFactory: (): RuntimeConfig => loadConfig({ env: process.env }) },
    { provide: NATS_CLIENT_NAME, useValue: 'ingress' },
    {
      provide: AGENT_CATALOG,
      inject: [RUNTIME_CONFIG],
      useFactory: (config: RuntimeConfig) => loadAgentModules(config.agentModules, process.cwd()),
    },
    {
      provide: TOPOLOGY,
      inject: [RUNTIME_CONFIG],
      useFactory: (config: RuntimeConfig) => createTopology({ prefix: config.prefix, partitions: config.partitions }),
    },
    natsServiceProvider,
    provisioningProvider,
    { provide: INGRESS_METRICS, useFactory: () => new IngressMetrics() },
    {
      // The active cluster key seals results and approvals of authenticated HTTP callers; read once.
      provide: CLUSTER_KEYS,
      inject: [RUNTIME_CONFIG],
      useFactory: (config: RuntimeConfig) => loadClusterKeys(config.signing, { env: process.env, readFile: (path) => readFileSync(path, 'utf8') }),
    },
    {
      // The HTTP edge: a bad auth section fails start-up (AuthConfigError), never a request.
      provide: EDGE_POLICY,
      inject: [RUNTIME_CONFIG],
      useFactory: async (config: RuntimeConfig): Promise<EdgePolicy> => {
        const authenticator = await createAuthenticator(config.auth, { clock: { nowMs: () => Date.now(), monotonicMs: () => performance.now() } });
        const { apiKeys, jwt } = authenticator.methods;
        new Logger('Ingress').log(
          apiKeys === 0 && !jwt
            ? 'HTTP API: no credentials configured (auth.apiKeys, auth.apiKeysFile, auth.jwt): every request is refused with 401'
            : `HTTP API accepts ${apiKeys} API key(s)${jwt ? ' and JWT bearer tokens' : ''}; results over HTTP ${config.ingress.routes.results.enabled ? 'on' : 'off'}, approvals over HTTP ${config.ingress.routes.approvals.enabled ? 'on' : 'off'}`,
        );
        return { authenticator, routes: config.ingress.routes, allowedOrigins: config.ingress.allowedOrigins };
      },
    },
    IngressService,
  ],
})
export class IngressModule {}
