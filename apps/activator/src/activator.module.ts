import { Logger, Module } from '@nestjs/common';
import { AGENT_CATALOG, assertAgentsFitConfig, loadAgentModules, withConfiguredBudgets, withConfiguredIsolation, loadConfig, longTermEnabled, RUNTIME_CONFIG, type RuntimeConfig } from '#config';
import { createTopology, type Topology } from '#routing';
import {
  JetStreamOutboxPublisher,
  KvStateStore,
  NATS_CLIENT_NAME,
  NatsService,
  natsServiceProvider,
  PROVISIONING,
  provisioningProvider,
  TOPOLOGY,
} from '#transport';
import { RuntimeMetrics, TelemetryModule, withTraceContext } from '#telemetry';
import { AGENT_WORKERS, LONGTERM_STORE, MODEL_PROVIDER, OUTBOX_PUBLISHER, RUNTIME_METRICS, SCHEDULER_CLOCK, STATE_STORE } from './activator.tokens.js';
import { NatsLongTermStore } from '#longterm';
import { systemClock } from './system-clock.js';
import { ActivatorService } from './activator.service.js';
import { AgentWorkers } from './worker-isolation.js';
import { buildModelProvider } from './model-provider.factory.js';

/**
 * The activator's composition root. Configuration is loaded once from the process environment
 * (and `$AGENTS_CONFIG`); agent modules are imported and streams provisioned while the module is
 * built, so a bad module or an unreachable server fails the start, not the first activation.
 */
@Module({
  imports: [TelemetryModule.forService('activator')],
  providers: [
    { provide: RUNTIME_CONFIG, useFactory: (): RuntimeConfig => loadConfig({ env: process.env }) },
    { provide: NATS_CLIENT_NAME, useValue: 'activator' },
    {
      provide: AGENT_WORKERS,
      inject: [RUNTIME_CONFIG, RUNTIME_METRICS],
      useFactory: (config: RuntimeConfig, metrics: RuntimeMetrics) => {
        const logger = new Logger('AgentWorkers');
        const workers = new AgentWorkers({
          modules: config.agentModules,
          cwd: process.cwd(),
          size: config.activator.workersPerAgent,
          onTerminated: (agent, cause) => {
            metrics.workerTerminations.inc({ agent, cause });
            logger.warn(
              cause === 'timeout'
                ? `terminated a worker of agent '${agent}': its attempt timed out (recorded as activation_timeout)`
                : `a worker of agent '${agent}' died mid-attempt (recorded as activation_error); the next attempt starts another`,
            );
          },
          onWarmFailed: (agent, error) => logger.warn(`the first worker of agent '${agent}' did not start (its first attempt tries again): ${error.message}`),
        });
        metrics.agentWorkersSource = () => workers.live();
        return workers;
      },
    },
    {
      provide: AGENT_CATALOG,
      inject: [RUNTIME_CONFIG, AGENT_WORKERS],
      // An agent the configuration cannot serve (onExpire without a long-term tier) fails the start.
      useFactory: async (config: RuntimeConfig, workers: AgentWorkers) => {
        const agents = await loadAgentModules(config.agentModules, process.cwd());
        assertAgentsFitConfig(agents, config);
        return workers.isolate(withConfiguredIsolation(withConfiguredBudgets(agents, config), config));
      },
    },
    {
      provide: TOPOLOGY,
      inject: [RUNTIME_CONFIG],
      useFactory: (config: RuntimeConfig) => createTopology({ prefix: config.prefix, partitions: config.partitions }),
    },
    natsServiceProvider,
    provisioningProvider,
    {
      provide: MODEL_PROVIDER,
      inject: [RUNTIME_CONFIG],
      useFactory: (config: RuntimeConfig) => buildModelProvider(config, process.env, process.cwd()),
    },
    {
      provide: STATE_STORE,
      inject: [NatsService, TOPOLOGY, PROVISIONING],
      useFactory: async (nats: NatsService, topology: Topology) => {
        return new KvStateStore(await nats.bucket(topology.buckets.state), nats.acks, topology.buckets.state);
      },
    },
    {
      provide: OUTBOX_PUBLISHER,
      inject: [NatsService],
      useFactory: (nats: NatsService) => new JetStreamOutboxPublisher(nats.acks),
    },
    { provide: RUNTIME_METRICS, useFactory: () => new RuntimeMetrics() },
    { provide: SCHEDULER_CLOCK, useValue: systemClock },
    {
      provide: LONGTERM_STORE,
      inject: [RUNTIME_CONFIG, NatsService, TOPOLOGY],
      // The tier is served by the memory-store service; the activator only holds a client. Its
      // requests carry the context active when an operation is called: the traced flush makes its
      // `longterm.flush` span active around the call (read synchronously, decision 0076).
      useFactory: (config: RuntimeConfig, nats: NatsService, topology: Topology) =>
        !longTermEnabled(config) ? null : new NatsLongTermStore(nats.nc, topology, { timeoutMs: config.longterm.requestTimeoutMs, requestHeaders: () => withTraceContext([]) }),
    },
    ActivatorService,
  ],
  exports: [ActivatorService],
})
export class ActivatorModule {}
