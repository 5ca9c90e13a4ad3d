/** Injection token of the `LongTermBackend` the service serves (`null` when `longterm.uri` is unset: tier off). */
export const LONG_TERM_BACKEND = Symbol.for('nats-agents.memory-store.backend');

/** Injection token of the `MemoryRequestHandler`. */
export const MEMORY_REQUEST_HANDLER = Symbol.for('nats-agents.memory-store.request-handler');

/** Injection token of the `EntityEraser` (served on `<prefix>.admin.erase`, with or without a long-term tier). */
export const ENTITY_ERASER = Symbol.for('nats-agents.memory-store.entity-eraser');

/** Injection token of the memory-store's `MemoryStoreMetrics`. */
export const MEMORY_STORE_METRICS = Symbol.for('nats-agents.memory-store.metrics');
