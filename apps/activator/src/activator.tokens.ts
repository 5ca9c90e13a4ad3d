/** Injection token of the activator's `ModelProvider`. */
export const MODEL_PROVIDER = Symbol.for('nats-agents.model-provider');

/** Injection token of the activator's `StateStore` (KV in production; tests wrap it to inject faults). */
export const STATE_STORE = Symbol.for('nats-agents.state-store');

/** Injection token of the activator's `OutboxPublisher`. */
export const OUTBOX_PUBLISHER = Symbol.for('nats-agents.outbox-publisher');

/** Injection token of the activator's `RuntimeMetrics`. */
export const RUNTIME_METRICS = Symbol.for('nats-agents.runtime-metrics');

/** Injection token of the activator's processing-time clock (timers fire on it). */
export const SCHEDULER_CLOCK = Symbol.for('nats-agents.scheduler-clock');

/** Injection token of the activator's long-term store (undefined when the tier is off). */
export const LONGTERM_STORE = Symbol.for('nats-agents.longterm-store');

/** Injection token of the activator's `AgentWorkers` (worker threads of worker-isolated agents). */
export const AGENT_WORKERS = Symbol.for('nats-agents.agent-workers');
