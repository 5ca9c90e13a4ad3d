/** Injection token of the tool catalog (`Map<string, AnyToolDefinition>`), modules plus the built-in `http` tool. */
export const TOOL_CATALOG = Symbol.for('nats-agents.effector.tool-catalog');

/** Injection token of the cluster keys (`ClusterKeys`): the keyring verifies intents, the active key seals results. */
export const KEYRING = Symbol.for('nats-agents.effector.keyring');

/** Injection token of the `DedupStore` (KV `AGENTS_EFFECTS`). */
export const DEDUP_STORE = Symbol.for('nats-agents.effector.dedup-store');

/** Injection token of the `OutboxPublisher` results and error records go through. */
export const RESULT_PUBLISHER = Symbol.for('nats-agents.effector.result-publisher');

/** Injection token of the `EffectorMetrics` registry. */
export const EFFECTOR_METRICS = Symbol.for('nats-agents.effector.metrics');

/** Injection token of the `IntentProcessor`. */
export const INTENT_PROCESSOR = Symbol.for('nats-agents.effector.intent-processor');

/** Injection token of the effector's `EntityPauses` view (entities being erased get no effects). */
export const ENTITY_PAUSES = Symbol.for('nats-agents.effector.entity-pauses');
