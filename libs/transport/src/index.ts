/**
 * @packageDocumentation
 * JetStream plumbing shared by the services: connections, idempotent provisioning, the KV
 * state store, outbox publishing with derived message ids, partition consumers and headers.
 */
export { bindBucket } from './bind-bucket.js';
export { connectNats, NatsConnectFailed } from './nats-connection.js';
export { toMsgHdrs, fromMsgHdrs, headerValue } from './message-headers.js';
export { OutgoingHeaders } from './outgoing-headers.js';
export { KvStateStore, StateStoreUnavailable } from './kv-state-store.js';
export { KvAgentTokenLedger, RETAINED_WINDOWS } from './kv-agent-token-ledger.js';
export type { LedgerChargeLost } from './kv-agent-token-ledger.js';
export { JetStreamOutboxPublisher, PublishUnacknowledged } from './jetstream-outbox-publisher.js';
export { PipelinedKvWrites, isRevisionConflict } from './pipelined-kv-writes.js';
export { PipelinedKvReads } from './pipelined-kv-reads.js';
export type { KvLastEntry } from './pipelined-kv-reads.js';
export { PubAckPipeline, PubAckTimeout, PubAckNoResponders, PubAckAbandoned } from './pub-ack-pipeline.js';
export type { PubAckPipelineOptions } from './pub-ack-pipeline.js';
export { provision, ProvisioningError, RECOMMENDED_MAX_PAYLOAD, LEASE_TTL_MS, DEFAULT_EFFECTS_TTL_MS, maxDocumentBytesFor } from './provisioner.js';
export type { ProvisionReport, ProvisionOptions } from './provisioner.js';
export { acquirePartitionConsumer } from './partition-consumer.js';
export { consumerTrouble } from './consumer-trouble.js';
export type { ConsumerTrouble } from './consumer-trouble.js';
export { KeyedConsumer } from './keyed-consumer.js';
export type { Intake, KeyedConsumerHandler, KeyedConsumerOptions, PullMode } from './keyed-consumer.js';
export type { PartitionConsumerOptions, AcquiredConsumer } from './partition-consumer.js';
export { NatsService, NATS_CLIENT_NAME } from './nest/nats.service.js';
export { natsServiceProvider, provisioningProvider, TOPOLOGY, PROVISIONING } from './nest/nats.providers.js';
export { PartitionLease, safetyMargin } from './partition-lease.js';
export type { MonotonicClock } from './partition-lease.js';
export { Membership } from './membership.js';
export { listKvKeys } from './kv-keys.js';
export { EntityPauses, pauseAckKey, encodePauseMarker, decodePauseMarker } from './entity-pauses.js';
export type { PauseMarker, PauseListener } from './entity-pauses.js';
export { documentCheck } from './document-check.js';
export type { DocumentCheckSources } from './document-check.js';
