import { readFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { Inject, Injectable, Logger, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import {
  HeaderName,
  NO_CLUSTER_KEYS,
  sealElement,
  type ActorRuntime,
  type AgentDefinition,
  type ClusterKeys,
  type LongTermStore,
  type ModelProvider,
  type OutboxPublisher,
  type StateStore,
} from '#core';
import { AGENT_CATALOG, assertCanVerify, loadClusterKeys, RUNTIME_CONFIG, type RuntimeConfig } from '#config';
import { JetStreamApiCodes, JetStreamApiError, type StoredMsg } from '@nats-io/jetstream';
import pRetry from 'p-retry';
import { topologyAddressing, type Topology } from '#routing';
import { acquirePartitionConsumer, documentCheck, EntityPauses, KvAgentTokenLedger, NatsService, pauseAckKey, PROVISIONING, toMsgHdrs, TOPOLOGY, type ProvisionReport } from '#transport';
import { ActivatorObserver } from './activator-observer.js';
import { AGENT_WORKERS, LONGTERM_STORE, MODEL_PROVIDER, OUTBOX_PUBLISHER, RUNTIME_METRICS, SCHEDULER_CLOCK, STATE_STORE } from './activator.tokens.js';
import type { AgentWorkers } from './worker-isolation.js';
import { directScreen } from './direct-screen.js';
import { digestOfToken, EntityGate } from './entity-gate.js';
import { intentSignerOf } from './intent-signer.factory.js';
import { verifyElement } from './element-verification.js';
import { KvTimerIndex } from './kv-timer-index.js';
import { composeCommitPath } from './commit-path.factory.js';
import { parseFailpoints } from './failpoint-state-store.js';
import { TimerScheduler, type SchedulerClock } from './timer-scheduler.js';
import { currentTracing, TraceScopes, type RuntimeMetrics } from '#telemetry';
import { OwnershipManager } from './ownership-manager.js';
import { parkThreshold, PartitionWorker } from './partition-worker.js';
import { ParkMarkers } from './park-markers.js';
import { leaseMoveObserver } from './telemetry/lease-move-observer.js';
import { TracedActorRuntime } from './telemetry/traced-actor-runtime.js';

/** How long a stopping activator lets in-flight activations finish before abandoning them. */
const DRAIN_MS = 10_000;

/**
 * The activator: provisions, claims its partitions (each with a fresh epoch), gives each one a
 * consumer that restarts from the predecessor's ack floor, and runs one worker per partition
 * over a shared actor runtime. On SIGTERM it stops pulling, drains in-flight activations
 * (commit, publish, ack) and exits; what it could not finish is redelivered to the next owner.
 */
@Injectable()
export class ActivatorService implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger(ActivatorService.name);
  private readonly workers = new Map<number, PartitionWorker>();
  private gate: EntityGate | undefined;
  private runtime: ActorRuntime | undefined;
  private ownership: OwnershipManager | undefined;
  private timerIndex: KvTimerIndex | undefined;
  private pauses: EntityPauses | undefined;
  private keys: ClusterKeys = NO_CLUSTER_KEYS;
  private ready = false;

  constructor(
    @Inject(RUNTIME_CONFIG) private readonly config: RuntimeConfig,
    @Inject(AGENT_CATALOG) private readonly agents: Map<string, AgentDefinition>,
    @Inject(TOPOLOGY) private readonly topology: Topology,
    @Inject(NatsService) private readonly nats: NatsService,
    @Inject(PROVISIONING) private readonly provisioning: ProvisionReport,
    @Inject(MODEL_PROVIDER) private readonly provider: ModelProvider,
    @Inject(STATE_STORE) private readonly store: StateStore,
    @Inject(OUTBOX_PUBLISHER) private readonly publisher: OutboxPublisher,
    @Inject(RUNTIME_METRICS) private readonly metrics: RuntimeMetrics,
    @Inject(SCHEDULER_CLOCK) private readonly clock: SchedulerClock,
    @Inject(LONGTERM_STORE) private readonly longterm: LongTermStore | null,
    @Inject(AGENT_WORKERS) private readonly agentWorkers: AgentWorkers,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    const report = this.provisioning;
    for (const warning of report.warnings) this.logger.warn(warning);
    // The cluster keys, read once: intents are signed and timer firings sealed with the active key;
    // results, approvals and timers are verified against the keyring (docs/decisions/0058).
    this.keys = loadClusterKeys(this.config.signing, { env: process.env, readFile: (path) => readFileSync(path, 'utf8') });
    assertCanVerify('activator.verification', this.config.activator.verification, this.keys);
    const signer = intentSignerOf(this.keys);
    const timerIndex = new KvTimerIndex(await this.nats.bucket(this.topology.buckets.timers), this.topology, this.nats.jsm, this.nats.acks, { nowMs: () => this.clock.nowMs() });
    this.timerIndex = timerIndex;
    const ports = {
      store: this.store,
      publisher: this.publisher,
      agents: this.agents,
      provider: this.provider,
      // With the journal on, a completed activation that called the model journals its responses (decision 0073).
      addressing: topologyAddressing(this.topology, { journal: this.config.activator.replayJournal }),
      timers: this.clock,
      monotonicMs: () => this.clock.monotonicMs(),
      // Only for the next-attempt time a held key's document shows.
      nowMs: () => this.clock.nowMs(),
      random: Math.random,
      activationTimeoutMs: this.config.activator.activationTimeoutMs,
      maxDocumentBytes: report.maxDocumentBytes,
      cacheCapacity: this.config.activator.cacheCapacity,
      cacheMaxBytes: this.config.activator.cacheMaxBytes,
      backoff: { baseMs: 100, maxMs: 30_000 },
      maxActivationAttempts: this.config.activator.maxActivationAttempts,
      observer: new ActivatorObserver(this.metrics, this.provider.name, this.config.prices).exposeHeldKeys(),
      timerIndex,
      screenDirect: directScreen(this.agents, this.config.ingress),
      checkDocument: documentCheck({ jsm: this.nats.jsm, inboxStream: this.topology.streams.inbox.name, leasesStream: `KV_${this.topology.buckets.leases}` }),
      ...(signer ? { signer } : {}),
      ...(this.longterm !== null ? { longterm: { store: this.longterm, retentionMs: this.config.longterm.retentionMs } } : {}),
      // Per-agent token budgets count in one KV entry per agent, shared by every activator.
      agentLedger: new KvAgentTokenLedger(await this.nats.bucket(this.topology.buckets.budgets), (agent, window, tokens, error) =>
        this.logger.warn(`a charge of ${tokens} tokens to agent '${agent}' (window starting ${window.startMs}) was not written: ${error.message}`),
      ),
    };
    // The running activations' spans, shared by the traced runtime and its commit-path wrappers.
    const scopes = new TraceScopes();
    const commitPath = composeCommitPath(ports, {
      failpoints: parseFailpoints(process.env.AGENTS_FAILPOINTS),
      // Commits only under a locally valid lease on the key's partition (the epoch fences the rest).
      holdsLease: (stateKey) => this.ownership?.holds(this.partitionOfStateKey(stateKey)) ?? false,
      metrics: this.metrics,
      prefix: this.topology.prefix,
      scopes,
      tracing: currentTracing()?.enabled === true,
      steps: currentTracing()?.steps ?? 'events',
    });
    this.runtime = new TracedActorRuntime(commitPath, {
      scopes,
      metrics: this.metrics,
      prefix: this.topology.prefix,
      partitionOf: (token) => this.topology.partitionOf(token),
      tracing: currentTracing()?.enabled === true,
      parentBased: currentTracing()?.parentBased === true,
      prices: this.config.prices,
    });

    const cached = this.runtime;
    this.metrics.actorCacheSource = () => cached.cacheUsage;

    const memberId = this.config.activator.instanceId ?? `${hostname()}-${process.pid}`;
    const runtime = this.runtime;
    const ofDigest = (digest: string) => (stateKey: string) => digestOfToken(stateKey.slice(stateKey.indexOf('.') + 1)) === digest;
    const erasures = await this.nats.bucket(this.topology.buckets.erasures);
    const gate = new EntityGate({
      anyPaused: () => this.pauses?.anyPaused === true,
      isPaused: (digest) => this.pauses?.isPaused(digest) === true,
      evict: (digest) => runtime.forget(ofDigest(digest)),
      // Straight to KV: pauses found while the view opens are acknowledged before it resolves.
      acknowledge: async (digest) => {
        await erasures.put(pauseAckKey(digest, memberId), new Uint8Array(0));
        this.logger.log(`entity ${digest.slice(0, 12)}… paused for erasure: nothing of it runs here`);
      },
      resumed: (digest) => {
        timerIndex.refresh(ofDigest(digest)).catch((error: unknown) => this.logger.warn(`reloading timers after a resume failed: ${(error as Error).message}`));
      },
      warn: (message) => this.logger.warn(message),
    });
    this.gate = gate;
    // Read before any partition is consumed: no activation of an entity paused earlier may start here.
    this.pauses = await EntityPauses.open(erasures, this.nats.jsm, this.topology.buckets.erasures, (event) => gate.onPauseChange(event));
    this.ownership = new OwnershipManager({
      memberId,
      partitions: this.topology.partitions,
      leaseTtlMs: this.config.activator.leaseTtlMs,
      leases: await this.nats.bucket(this.topology.buckets.leases),
      members: await this.nats.bucket(this.topology.buckets.members),
      membersBucket: this.topology.buckets.members,
      jsm: this.nats.jsm,
      clock: this.clock,
      info: { agents: [...this.agents.keys()].join(',') },
      observer: leaseMoveObserver(this.metrics),
      hooks: {
        acquired: (partition, epoch) => this.startPartition(runtime, timerIndex, partition, epoch),
        released: (partition, reason) => this.stopPartition(partition, reason === 'rebalance' || reason === 'shutdown'),
      },
    });
    await this.ownership.start();
    this.ready = true;
    this.logger.log(`activator ${memberId} joined the cluster (${this.topology.partitions} partitions); agents: ${[...this.agents.keys()].join(', ') || '(none)'}`);
  }

  /** True once every owned partition is being consumed. */
  get isReady(): boolean {
    return this.ready;
  }

  async onApplicationShutdown(): Promise<void> {
    this.ready = false;
    await this.ownership?.stop();
    this.timerIndex?.close();
    await this.pauses?.close();
    // After the drain: a worker still running an attempt would otherwise fail it.
    await this.agentWorkers.close();
  }

  /** True while membership and partition leases are in a good state (readiness). */
  get leasesHealthy(): boolean {
    return this.ownership?.healthy ?? false;
  }

  /** Partitions this activator consumes now, with their epochs. */
  get ownedPartitions(): ReadonlyMap<number, number> {
    return this.ownership?.partitions ?? new Map();
  }

  private async startPartition(runtime: ActorRuntime, timerIndex: KvTimerIndex, partition: number, epoch: number): Promise<void> {
    const consumer = await acquirePartitionConsumer(this.nats.jsm, {
      stream: this.topology.streams.inbox.name,
      filterSubject: this.topology.inboxPartitionFilter(partition),
      namePrefix: `activator-p${String(partition).padStart(4, '0')}`,
      epoch,
      ackWaitMs: this.config.activator.ackWaitMs,
      maxAckPending: this.config.activator.maxAckPending,
    });
    const worker = new PartitionWorker({
      partition,
      epoch,
      stream: this.topology.streams.inbox.name,
      consumerName: consumer.name,
      ackWaitMs: this.config.activator.ackWaitMs,
      batch: Math.min(256, this.config.activator.maxAckPending),
      js: this.nats.js,
      runtime,
      topology: this.topology,
      gate: this.requireGate(),
      stillStored: (seq) => this.stillStored(seq),
      onFenced: (p) => this.ownership?.fenced(p),
      onGap: (p) => this.ownership?.requestReset(p),
      markers: new ParkMarkers(await this.nats.bucket(this.topology.buckets.timers), this.nats.jsm, this.topology, partition),
      parkAt: parkThreshold(this.config.activator.maxAckPending),
      readNext: (subject, seq) => this.readInboxNext(subject, seq),
      verify: (decoded, auth) => verifyElement(this.config.activator.verification, this.keys, decoded.address.agent, decoded.element, auth),
    });
    const scheduler = new TimerScheduler(partition, this.topology, this.clock, async (subject, envelope, msgId, entityKey, sealInput) => {
      // A paused entity's firings are held back: the resume reloads its timers from the index.
      if (this.pauses?.isKeyPaused(entityKey) === true) return;
      // Sealed with the active key: the seal proves the firing is ours, and its keyed message id
      // cannot be pre-empted by a forger inside the lane's duplicate window.
      const seal = sealElement(this.keys, sealInput);
      await this.nats.js.publish(subject, envelope, {
        msgID: seal?.msgId ?? msgId,
        timeout: this.config.nats.requestTimeoutMs,
        ...(seal !== undefined ? { headers: toMsgHdrs([{ name: HeaderName.Auth, value: seal.header }]) } : {}),
      });
    });
    const timersLoaded = await timerIndex.attach(partition, scheduler);
    if (timersLoaded > 0) this.logger.log(`partition ${partition}: ${timersLoaded} keys with timers rescheduled`);
    await worker.start();
    this.workers.set(partition, worker);
  }

  private requireGate(): EntityGate {
    if (this.gate === undefined) throw new Error('the entity gate is built before partitions are taken');
    return this.gate;
  }

  /** Whether the inbox still stores `seq`: false once an erasure purged it. Retries transient failures. */
  private async stillStored(seq: number): Promise<boolean> {
    return pRetry(
      async () => {
        try {
          await this.nats.jsm.streams.getMessage(this.topology.streams.inbox.name, { seq });
          return true;
        } catch (error) {
          if (error instanceof JetStreamApiError && (error.code === JetStreamApiCodes.NoMessageFound || error.status === 404)) return false;
          throw error;
        }
      },
      { retries: 5, minTimeout: 200 },
    );
  }

  /** The first inbox message at or after `seq` on `subject`, or undefined (a parked key's replay). */
  private async readInboxNext(subject: string, seq: number): Promise<StoredMsg | undefined> {
    try {
      // nats-server 2.9 answers `next_by_subj` on STREAM.MSG.GET; the client's type lists only seq and last_by_subj.
      return (await this.nats.jsm.streams.getMessage(this.topology.streams.inbox.name, { seq, next_by_subj: subject } as unknown as { seq: number })) ?? undefined;
    } catch (error) {
      if (error instanceof JetStreamApiError && (error.code === JetStreamApiCodes.NoMessageFound || error.status === 404)) return undefined;
      throw error;
    }
  }

  private async stopPartition(partition: number, drain: boolean): Promise<void> {
    const worker = this.workers.get(partition);
    this.workers.delete(partition);
    await worker?.stop(drain ? DRAIN_MS : 0);
    this.timerIndex?.detach(partition);
    this.runtime?.forget((stateKey) => this.partitionOfStateKey(stateKey) === partition);
  }

  /** The partition of a state key (`<agent>.<key token>`). */
  private partitionOfStateKey(stateKey: string): number {
    return this.topology.partitionOf(stateKey.slice(stateKey.indexOf('.') + 1));
  }
}
