/**
 * @packageDocumentation
 * The test kit of nats-agents: runs an agent in-process on the real actor runtime with in-memory
 * ports (state store, outbox, manual clock) and a scripted model, so a spec drives events, tool
 * results, approvals and deadlines without a cluster.
 *
 * @module testing
 */
export {};
