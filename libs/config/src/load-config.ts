import { readFileSync } from 'node:fs';
import { parse as parseYaml } from 'yaml';
import { z } from 'zod';
import { aliasProblems, RuntimeConfigSchema, type RuntimeConfig } from './runtime-config.js';

/** The configuration is invalid; the message names every offending field. Services exit on it. */
export class ConfigError extends Error {
  override readonly name = 'ConfigError';
}

/** Where configuration comes from, lowest precedence first: defaults, file, environment, overrides. */
export interface ConfigSources {
  /** The process environment (passed in, so loading stays testable). */
  readonly env: Readonly<Record<string, string | undefined>>;
  /** A YAML or JSON file; defaults to `$AGENTS_CONFIG` when set. */
  readonly file?: string;
  /** Values that win over everything (tests, CLI flags). */
  readonly overrides?: Record<string, unknown>;
}

/**
 * The environment variables the runtime reads, each mapped onto a config path. Kept to the
 * handful an operator sets per deployment; everything else belongs in the config file.
 */
export const ConfigEnv = {
  /** Comma-separated NATS server URLs. */
  NATS_URL: ['nats', 'url'],
  /** NATS credentials file. */
  NATS_CREDS: ['nats', 'credsFile'],
  /** Subject prefix. */
  AGENTS_PREFIX: ['prefix'],
  /** Inbox partition count. */
  AGENTS_PARTITIONS: ['partitions'],
  /** Comma-separated agent module paths. */
  AGENTS_MODULES: ['agentModules'],
  /** Activation timeout in ms. */
  AGENTS_ACTIVATION_TIMEOUT_MS: ['activator', 'activationTimeoutMs'],
  /** Partition lease and membership TTL in ms. */
  AGENTS_LEASE_TTL_MS: ['activator', 'leaseTtlMs'],
  /** This process's member id. */
  AGENTS_INSTANCE_ID: ['activator', 'instanceId'],
  /** Ingress HTTP port. */
  AGENTS_HTTP_PORT: ['ingress', 'httpPort'],
  /** Stream replicas. */
  AGENTS_REPLICAS: ['streams', 'replicas'],
  /** Module exporting the FakeLlm rules (selects the fake provider). */
  AGENTS_MODEL_SCRIPT: ['model', 'script'],
  /** Comma-separated tool module paths (effector). */
  AGENTS_TOOL_MODULES: ['effector', 'toolModules'],
  /** Effector signature verification mode: off | permissive | require. */
  AGENTS_VERIFY_INTENTS: ['effector', 'verification'],
  /** Activator seal verification of results, approvals and timers: off | permissive | require. */
  AGENTS_VERIFY_ELEMENTS: ['activator', 'verification'],
  /** Key id this service signs and seals with. */
  AGENTS_SIGNING_KEY_ID: ['signing', 'keyId'],
  /** File holding the activator's signing secret (base64). */
  AGENTS_SIGNING_KEY_FILE: ['signing', 'keyFile'],
  /** File holding the cluster keyring (`key_id=base64` lines). */
  AGENTS_KEYRING_FILE: ['signing', 'keyringFile'],
  /** Activators: journal completed activations' model responses for offline replay (`true`/`false`; default true). */
  AGENTS_REPLAY_JOURNAL: ['activator', 'replayJournal'],
  /** Long-term memory backend URI (unset = tier off); may carry credentials, never logged unredacted. */
  AGENTS_LONGTERM_URI: ['longterm', 'uri'],
  /** Activators: use the long-term tier through the memory-store (`true`/`false`; default: on when the URI is set). */
  AGENTS_LONGTERM_ENABLED: ['longterm', 'enabled'],
  /** A YAML or JSON file of API key entries (digests, roles, scopes) the HTTP edges accept; mounted from a Secret. */
  AGENTS_API_KEYS_FILE: ['auth', 'apiKeysFile'],
  /** Ingress: accept tool results over HTTP (`true`/`false`; default false). */
  AGENTS_HTTP_RESULTS_ENABLED: ['ingress', 'routes', 'results', 'enabled'],
  /** Ingress: accept approval decisions over HTTP (`true`/`false`; default false). */
  AGENTS_HTTP_APPROVALS_ENABLED: ['ingress', 'routes', 'approvals', 'enabled'],
  /** Address of the ops listener (/metrics, /healthz, /readyz). */
  AGENTS_OPS_HOST: ['ops', 'host'],
  /** Port of the ops listener; 0 picks a free one. */
  AGENTS_OPS_PORT: ['ops', 'port'],
  /** Port of the console's HTTP listener; 0 picks a free one. */
  AGENTS_CONSOLE_PORT: ['console', 'httpPort'],
  /** Comma-separated `/metrics` URLs the console's agents view reads. */
  AGENTS_CONSOLE_METRICS: ['console', 'metricsTargets'],
  /** The key inspector's trace link template. */
  AGENTS_CONSOLE_TRACE_URL: ['console', 'traceUrlTemplate'],
} as const;

const numeric = new Set(['partitions', 'activationTimeoutMs', 'httpPort', 'replicas', 'leaseTtlMs', 'port']);
const booleans = new Set(['enabled', 'replayJournal']);

/**
 * Loads and validates the runtime configuration. Pure but for reading `file`: the same sources
 * give the same config. Throws {@link ConfigError} naming each invalid field and its value.
 */
export function loadConfig(sources: ConfigSources): RuntimeConfig {
  const merged: Record<string, unknown> = {};
  const file = sources.file ?? sources.env.AGENTS_CONFIG;
  if (file !== undefined && file !== '') {
    let text: string;
    try {
      text = readFileSync(file, 'utf8');
    } catch (error) {
      throw new ConfigError(`cannot read config file ${file}: ${(error as Error).message}`);
    }
    const parsed: unknown = parseYaml(text);
    if (parsed !== null && parsed !== undefined) {
      if (typeof parsed !== 'object' || Array.isArray(parsed)) throw new ConfigError(`config file ${file} must hold a mapping`);
      deepMerge(merged, parsed as Record<string, unknown>);
    }
  }
  for (const [name, path] of Object.entries(ConfigEnv)) {
    const raw = sources.env[name];
    if (raw === undefined || raw === '') continue;
    const leaf = path[path.length - 1] as string;
    let value: unknown = raw;
    if (leaf === 'agentModules' || leaf === 'toolModules' || leaf === 'metricsTargets') value = raw.split(',').map((s) => s.trim()).filter((s) => s.length > 0);
    else if (numeric.has(leaf)) value = Number(raw);
    else if (booleans.has(leaf)) {
      if (raw !== 'true' && raw !== 'false') throw new ConfigError(`${name} must be true or false, got '${raw}'`);
      value = raw === 'true';
    }
    setPath(merged, path, value);
  }
  if (sources.overrides) deepMerge(merged, sources.overrides);
  const model = merged.model;
  if (isPlainObject(model) && model.provider === undefined && model.script !== undefined) model.provider = 'fake';

  const result = RuntimeConfigSchema.safeParse(merged);
  if (!result.success) throw new ConfigError(`invalid configuration:\n${z.prettifyError(result.error)}`);
  const dangling = aliasProblems(result.data);
  if (dangling.length > 0) throw new ConfigError(`invalid configuration:\n${dangling.map((p) => `✖ ${p}`).join('\n')}`);
  return result.data;
}

function setPath(target: Record<string, unknown>, path: readonly string[], value: unknown): void {
  let node = target;
  for (const segment of path.slice(0, -1)) {
    const child = node[segment];
    if (typeof child !== 'object' || child === null) node[segment] = {};
    node = node[segment] as Record<string, unknown>;
  }
  node[path[path.length - 1] as string] = value;
}

function deepMerge(target: Record<string, unknown>, source: Record<string, unknown>): void {
  for (const [key, value] of Object.entries(source)) {
    const existing = target[key];
    if (isPlainObject(value) && isPlainObject(existing)) deepMerge(existing, value);
    else target[key] = isPlainObject(value) ? structuredClone(value) : value;
  }
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
