/** Injection token of the validated `RuntimeConfig` (provided by each service's root module). */
export const RUNTIME_CONFIG = Symbol.for('nats-agents.runtime-config');

/** Injection token of the loaded agent catalog (`Map<string, AgentDefinition>`). */
export const AGENT_CATALOG = Symbol.for('nats-agents.agent-catalog');
