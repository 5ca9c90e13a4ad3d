/**
 * The span attributes the runtime writes: a closed vocabulary, so dashboards and trace searches
 * (Jaeger: `agents.key=<digest>`) can rely on the names. Keys appear as a digest of their key token
 * by default, or as the token itself under `AGENTS_TRACE_KEYS=token` (see `keyAttribute`); payloads,
 * arguments and model messages NEVER appear in a span.
 */
export const AgentsAttribute = {
  /** The agent name. */
  Agent: 'agents.agent',
  /** The entity key: a digest of its key token by default, the token under `AGENTS_TRACE_KEYS=token` (see `keyAttribute`); never raw bytes. */
  Key: 'agents.key',
  /** The inbox partition of the key. */
  Partition: 'agents.partition',
  /** The element's inbox stream sequence (its identity for deduplication). */
  InboxSeq: 'agents.inbox.seq',
  /** What the element carries: event, result, approval or timer. */
  ElementKind: 'agents.element.kind',
  /** The activation seq (`ctx.seq`); a resume keeps its start's seq. */
  Seq: 'agents.seq',
  /** True when the activation resumed a suspension (a result, an approval or a deadline). */
  Resumed: 'agents.resumed',
  /** How processing ended: applied, duplicate, noop, refused, fenced, abandoned (activator); published, republished, refused, claim_lost, unpublished, abandoned (effector); forwarded, refused, abandoned (ingress). */
  Outcome: 'agents.outcome',
  /** The activation status (completed, suspended, failed, timed_out, orphaned, deferred, ...). */
  Status: 'agents.status',
  /** The error reason of a record the element produced (closed vocabulary, docs/errors.md). */
  ErrorReason: 'agents.error.reason',
  /** Attempts inside this process (1 + in-place retries after conflicts or outages). */
  Attempts: 'agents.attempts',
  /** True when the element was retried in place at least once (a conflict, an outage). */
  Retried: 'agents.retried',
  /** How many times the broker delivered the message (1 = first delivery). */
  Deliveries: 'agents.deliveries',
  /** True when this delivery is a redelivery (a crash, an ack timeout, a partition move). */
  Redelivered: 'agents.redelivered',
  /** True when the element had already been applied: a replay that re-published and ran nothing. */
  Replay: 'agents.replay',
  /** True for an event a client published straight into the inbox lane. */
  Direct: 'agents.direct',
  /** The writer's owner epoch. */
  OwnerEpoch: 'agents.owner_epoch',
  /** Working-memory size after the activation, in bytes. */
  MemoryBytes: 'agents.memory.bytes',
  /** Outputs published by the commit. */
  Outputs: 'agents.outputs',
  /** Intents (tool intents and approval requests) published by the commit. */
  Intents: 'agents.intents',
  /** Model calls made by the attempt (provider and cache). */
  ModelCalls: 'agents.model.calls',
  /** Model calls answered by the replay cache. */
  CacheHits: 'agents.model.cache_hits',
  /** What the activation's provider calls cost in USD, from the configured price table (absent when nothing was priced). */
  CostUsd: 'agents.cost.usd',
  /** On a model-call span: true when the replay cache (or an earlier attempt) answered it. */
  CacheHit: 'agents.model.cache_hit',
  /** On a model-call span: the step index of the call in its activation. */
  Step: 'agents.model.step',
  /** The intent id (uuid v5, derived). */
  IntentId: 'agents.intent.id',
  /** The tool an intent names. */
  Tool: 'agents.tool',
  /** Tool attempts of one execution (the tool's own retries). */
  ToolAttempts: 'agents.tool.attempts',
  /** True when the tool ran for this delivery (false for a refusal, an expiry or a dedup). */
  Executed: 'agents.tool.executed',
  /** The result status: ok, error, expired, rejected. */
  ResultStatus: 'agents.result.status',
  /** True when the intent was already done and its stored result was re-published (a replay). */
  Deduped: 'agents.deduped',
  /** The ingest lane: events, results or approvals. */
  Lane: 'agents.ingest.lane',
  /** The ingest stream sequence of the message. */
  IngestSeq: 'agents.ingest.seq',
  /** Entries in one outbox publish. */
  OutboxEntries: 'agents.outbox.entries',
  /** Records in one long-term flush. */
  LongTermRecords: 'agents.longterm.records',
  /** The KV revision a commit produced. */
  StateRevision: 'agents.state.revision',
  /** Size of a committed state document in bytes. */
  StateBytes: 'agents.state.bytes',
  /** A memory-store operation (load, search, upsert, ...). */
  MemoryOp: 'agents.memory.op',
  /** On a step event of `activate` (`AGENTS_TRACE_STEPS=events`): how long the step took, in milliseconds. */
  DurationMs: 'agents.duration_ms',
  /** On a `state.commit` step event: the compare-and-set lost to a newer revision (the step is retried in place). */
  Conflict: 'agents.state.conflict',
} as const;
export type AgentsAttribute = (typeof AgentsAttribute)[keyof typeof AgentsAttribute];

/**
 * OpenTelemetry GenAI semantic-convention attributes used on model-call spans. The convention is
 * still in development, so the names are copied here (as its maintainers advise) from
 * `@opentelemetry/semantic-conventions` 1.45.0 rather than imported from its incubating entry.
 * Both `gen_ai.system` (older backends) and `gen_ai.provider.name` (newer) are written.
 */
export const GenAiAttribute = {
  OperationName: 'gen_ai.operation.name',
  System: 'gen_ai.system',
  ProviderName: 'gen_ai.provider.name',
  RequestModel: 'gen_ai.request.model',
  InputTokens: 'gen_ai.usage.input_tokens',
  OutputTokens: 'gen_ai.usage.output_tokens',
} as const;
export type GenAiAttribute = (typeof GenAiAttribute)[keyof typeof GenAiAttribute];

/** OpenTelemetry messaging semantic-convention attributes used on consume and publish spans (copied, as above). */
export const MessagingAttribute = {
  System: 'messaging.system',
  DestinationName: 'messaging.destination.name',
  OperationType: 'messaging.operation.type',
  MessageId: 'messaging.message.id',
  BatchCount: 'messaging.batch.message_count',
} as const;
export type MessagingAttribute = (typeof MessagingAttribute)[keyof typeof MessagingAttribute];
