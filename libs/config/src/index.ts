/**
 * @packageDocumentation
 * The runtime configuration: one validated schema shared by every service, loaded from
 * defaults, an optional YAML file, a few environment variables and explicit overrides.
 */
export {
  RuntimeConfigSchema,
  NatsConfigSchema,
  StreamsConfigSchema,
  ActivatorConfigSchema,
  IngressConfigSchema,
  ModelConfigSchema,
  ModelAliasSchema,
  ProviderLimitsSchema,
  SigningConfigSchema,
  EffectorConfigSchema,
  LongTermConfigSchema,
  OpsConfigSchema,
  ConsoleConfigSchema,
} from './runtime-config.js';
export type { RuntimeConfig, RuntimeConfigInput } from './runtime-config.js';
export { loadConfig, ConfigError, ConfigEnv } from './load-config.js';
export { longTermEnabled } from './long-term-enabled.js';
export { SERVICE_NODE_FLAGS } from './service-node-flags.js';
export { SERVICE_V8_FLAGS, applyServiceV8Flags } from './service-v8-flags.js';
export type { ConfigSources } from './load-config.js';
export { loadAgentModules, agentModulesProblem, AgentModuleError } from './agent-modules.js';
export { assertAgentsFitConfig } from './agent-requirements.js';
export { withConfiguredBudgets } from './agent-budgets.js';
export { withConfiguredIsolation } from './agent-isolation.js';
export { loadToolModules, ToolModuleError } from './tool-modules.js';
export { KeyringError, parseKeyring, loadKeyringText, loadClusterKeys, assertCanVerify } from './cluster-keyring.js';
export type { KeySources } from './cluster-keyring.js';
export { RUNTIME_CONFIG, AGENT_CATALOG } from './nest/runtime-config.token.js';
