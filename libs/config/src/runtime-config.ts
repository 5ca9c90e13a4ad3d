import { z } from 'zod';
import { MEMORY_TYPE_PATTERN } from '#core';
import { parseLongTermUri } from '#longterm';
import { AuthConfigSchema } from '#auth';

const positiveInt = z.number().int().positive();
const subjectToken = z.string().regex(/^[A-Za-z0-9_-]+$/, 'must be a subject token: letters, digits, _ and -');

/** NATS connection settings; secrets are referenced by file, never inlined in config files. */
export const NatsConfigSchema = z.strictObject({
  /** Comma-separated server URLs. */
  url: z.string().min(1).default('nats://127.0.0.1:4222'),
  /** Path of a NATS credentials (.creds) file. */
  credsFile: z.string().optional(),
  /** Path of a file holding an nkey seed. */
  nkeySeedFile: z.string().optional(),
  /** Path of a file holding a bearer token. */
  tokenFile: z.string().optional(),
  /** User name for user/password authentication (the password comes from `passwordFile`). */
  user: z.string().optional(),
  /** Path of a file holding the user's password. */
  passwordFile: z.string().optional(),
  /** TLS towards the servers (files mounted from secrets). */
  tls: z
    .strictObject({
      /** CA bundle that signs the servers' certificates. */
      caFile: z.string().optional(),
      /** Client certificate (mutual TLS). */
      certFile: z.string().optional(),
      /** Client certificate's private key (mutual TLS). */
      keyFile: z.string().optional(),
    })
    .optional(),
  /** Per-request timeout of JetStream API calls and publishes. */
  requestTimeoutMs: positiveInt.default(10_000),
});

/** Stream and bucket sizing; applied by provisioning. */
export const StreamsConfigSchema = z.strictObject({
  /** Replicas of every stream and bucket (1 for a single server, 3 in production clusters). */
  replicas: z.number().int().min(1).max(5).default(1),
  /** Dedupe window of every runtime stream: longer than the longest republish gap you expect. */
  duplicateWindowMs: positiveInt.default(15 * 60_000),
  /** Retention of the inbox and ingest streams (history for replays and consumer resets). */
  inboxMaxAgeMs: positiveInt.default(7 * 24 * 3_600_000),
  /** Retention of outputs and errors. */
  outputMaxAgeMs: positiveInt.default(7 * 24 * 3_600_000),
  /** Retention of erasure audit records; 0 keeps them forever. */
  auditMaxAgeMs: z.number().int().min(0).default(0),
  /**
   * Retention of the replay journal (completed activations' model responses, decision 0073).
   * Absent: `inboxMaxAgeMs`, since a replay needs the key's inbox elements too. Shorter saves space
   * and makes replays of older activations need `--model-script` again.
   */
  journalMaxAgeMs: positiveInt.optional(),
});

export const ActivatorConfigSchema = z.strictObject({
  /** Upper bound of one activation (invariant 6); agents may lower or raise theirs. */
  activationTimeoutMs: positiveInt.default(30_000),
  /** Committed documents kept in memory (idle keys beyond it are re-read from KV). */
  cacheCapacity: z.number().int().min(0).default(20_000),
  /**
   * Encoded bytes of the documents kept in memory, at most (least recently used evicted first);
   * the heap holds a small multiple of it (docs/performance.md measures the activator's RSS per
   * cached key). Both bounds apply. 0 caches nothing.
   */
  cacheMaxBytes: z.number().int().min(0).default(64 * 1024 * 1024),
  /**
   * Seal verification of tool results, approvals and timer firings (docs/decisions/0058): off;
   * permissive (refuse bad seals, accept unsealed ones); require (refuse unsealed ones too). Any
   * mode but off needs the cluster keyring (`signing.keyringFile` / `signing.keyringEnv`).
   */
  verification: z.enum(['off', 'permissive', 'require']).default('off'),
  /** Unacknowledged inbox messages per partition: the in-flight window across keys. */
  maxAckPending: positiveInt.default(512),
  /** Redelivery deadline of an unacknowledged inbox message; the activator heartbeats long work. */
  ackWaitMs: positiveInt.default(30_000),
  /** This process's member id (defaults to host name + pid); a KV key: `[-/_=.a-zA-Z0-9]`. */
  instanceId: z.string().regex(/^[-/_=.a-zA-Z0-9]+$/).optional(),
  /**
   * Lease and membership TTL: a partition whose owner stops renewing moves after about this long.
   * Leases renew every third of it. Shorter fails over faster and costs more KV writes.
   */
  leaseTtlMs: z.number().int().min(1_000).default(15_000),
  /**
   * Attempts of an element whose activation fails retryably (the agent's RetryableError, a provider
   * unavailable or rate-limited): the key is held and retried with backoff (other keys go on), and
   * after the last attempt an `activation_error` record carries the count. 1 records at once.
   */
  maxActivationAttempts: positiveInt.default(5),
  /**
   * Worker threads per worker-isolated agent (`isolation: worker`) in this process, at most: an
   * attempt waits for a free one (the wait counts against its timeout). A worker is reused across
   * activations and replaced when a timeout terminates it.
   */
  workersPerAgent: z.number().int().min(1).max(64).default(2),
  /**
   * Journal each completed activation's model responses (one message on the journal stream per
   * activation that called the model; none for one that did not), so `nats-agents replay` answers
   * them without `--model-script` (decision 0073). Off: no journal is written and replays of finished
   * model-calling activations need a scripted model.
   */
  replayJournal: z.boolean().default(true),
});

export const IngressConfigSchema = z.strictObject({
  /** Address of the HTTP listener for `POST /v1/agents/:agent/events/:key` (events, results, approvals). */
  httpHost: z.string().default('127.0.0.1'),
  /** Port of that listener (`AGENTS_HTTP_PORT`); 0 picks a free port. */
  httpPort: z.number().int().min(0).max(65_535).default(8080),
  /** Largest accepted event, result or approval body. */
  maxEventBytes: positiveInt.default(256 * 1024),
  /** Longest accepted entity key (raw bytes). */
  maxKeyBytes: positiveInt.default(256),
  /** Ingest messages in flight (forwarded to the inbox, not yet acknowledged). */
  maxAckPending: positiveInt.default(1024),
  /** Redelivery deadline of an ingest message that was not forwarded. */
  ackWaitMs: positiveInt.default(30_000),
  /**
   * Which HTTP routes answer. Every route needs a credential (the `auth` section) with the route's
   * scope (docs/auth.md); tool results and approvals over HTTP are off unless turned on here (a
   * disabled route answers 404).
   */
  routes: z
    .strictObject({
      /** `POST /v1/agents/:agent/results/:key`: tool results from callers outside NATS (scope `results:submit[:<agent>]`). */
      results: z
        .strictObject({
          /** Accept tool results over HTTP (`AGENTS_HTTP_RESULTS_ENABLED`). */
          enabled: z.boolean().default(false),
        })
        .prefault({}),
      /** `POST /v1/agents/:agent/approvals/:key`: human decisions; the approver is the credential's principal (scope `approvals:decide[:<agent>]`). */
      approvals: z
        .strictObject({
          /** Accept approval decisions over HTTP (`AGENTS_HTTP_APPROVALS_ENABLED`). */
          enabled: z.boolean().default(false),
        })
        .prefault({}),
    })
    .prefault({}),
  /**
   * Browser origins allowed to call the HTTP API (exact `scheme://host[:port]`). A request with an
   * `Origin` header not listed here is refused with 403 (cross-site request forgery); requests
   * without `Origin` (servers, curl) are unaffected.
   */
  allowedOrigins: z.array(z.string().regex(/^https?:\/\/[^/\s]+$/, 'must be scheme://host[:port]')).default([]),
});

/**
 * Protection of one provider inside one activator process (each process enforces its own share):
 * a concurrency cap, request and token rates per minute (calls wait for room, bounded by the
 * activation timeout), and a circuit breaker that fails calls fast while the provider is down.
 */
export const ProviderLimitsSchema = z.strictObject({
  /** Calls in flight at once; more wait their turn. */
  maxConcurrency: positiveInt.optional(),
  /** Calls started per rolling minute. */
  requestsPerMinute: positiveInt.optional(),
  /** Tokens (as the provider reports them) per rolling minute; a call starts only while the minute has room. */
  tokensPerMinute: positiveInt.optional(),
  /** Opens after `failureThreshold` consecutive retryable failures; fails fast for `openMs`, then lets one call probe. */
  breaker: z
    .strictObject({
      /** Consecutive retryable failures (after the provider's own retries) that open the circuit. */
      failureThreshold: positiveInt.default(5),
      /** How long an open circuit fails calls fast before one probe call may go through. */
      openMs: positiveInt.default(30_000),
    })
    .optional(),
});

export const ModelConfigSchema = z.discriminatedUnion('provider', [
  z.strictObject({
    /** `fake`: the scripted, offline FakeLlm; `openai-compatible`: any chat-completions endpoint; `anthropic`: the Messages API. */
    provider: z.literal('fake'),
    /** Module exporting `rules` for the FakeLlm (the demo script by default). */
    script: z.string().optional(),
    limits: ProviderLimitsSchema.optional(),
  }),
  z.strictObject({
    provider: z.literal('openai-compatible'),
    /** Base URL of the chat-completions API (`…/v1`). */
    baseUrl: z.url(),
    /** Environment variable holding the API key. */
    apiKeyEnv: z.string().optional(),
    /** File holding the API key. */
    apiKeyFile: z.string().optional(),
    /** Per-request timeout of a model call. */
    timeoutMs: positiveInt.default(60_000),
    /** Attempts per model call on retryable failures (rate limits, 5xx, timeouts), with backoff. */
    maxAttempts: positiveInt.default(4),
    limits: ProviderLimitsSchema.optional(),
  }),
  z.strictObject({
    provider: z.literal('anthropic'),
    /** API root without `/v1` (a gateway, or a local server in tests). */
    baseUrl: z.url().default('https://api.anthropic.com'),
    /** Environment variable holding the API key (one of `apiKeyEnv` / `apiKeyFile` is required). */
    apiKeyEnv: z.string().optional(),
    /** File holding the API key. */
    apiKeyFile: z.string().optional(),
    /** Per-request timeout of a model call. */
    timeoutMs: positiveInt.default(60_000),
    /** Attempts per model call on retryable failures (429, 5xx, 529 overloaded, timeouts), with backoff. */
    maxAttempts: positiveInt.default(4),
    /** `max_tokens` of a request whose params name none (the Messages API requires one). */
    maxTokens: positiveInt.default(1_024),
    limits: ProviderLimitsSchema.optional(),
  }),
]);

const aliasName = z.string().regex(/^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$/, 'must be a model alias: letters, digits, . _ : -');

/** A model alias: the name agents pass as `model` to `ctx.callModel`, mapped to a named provider and its real model id. */
export const ModelAliasSchema = z.strictObject({
  /** A key of `providers`, or `default` for the `model` section's provider. */
  provider: z.string().min(1),
  /** The model id the provider is sent. */
  model: z.string().min(1),
});

/**
 * Cluster keys (HMAC-SHA256, docs/decisions/0058). The activator signs every intent it commits and
 * seals its timer firings with `keyId`; the effector seals its results, ingress seals results and
 * approvals of authenticated HTTP callers, the console seals its approvals. The effector verifies
 * intents, the activator results, approvals and timers, against the keyring. Secrets are files or
 * environment variables, never inline values.
 */
export const SigningConfigSchema = z.strictObject({
  /** Key id this service signs and seals with; unset = it signs nothing. */
  keyId: z.string().min(1).optional(),
  /** File holding the signing secret (base64); unset = the keyring's entry for `keyId`. */
  keyFile: z.string().optional(),
  /** Environment variable holding the signing secret (base64). */
  keyEnv: z.string().optional(),
  /**
   * The cluster keyring: a file of `key_id=base64secret` lines (several during rotation), which
   * every verifier checks against.
   */
  keyringFile: z.string().optional(),
  /** Environment variable holding the keyring (same line format). */
  keyringEnv: z.string().optional(),
});

export const EffectorConfigSchema = z.strictObject({
  /** Module paths exporting tools (`{ name, sideEffect: true, handler }`), like agent modules. */
  toolModules: z.array(z.string().min(1)).default([]),
  /** off: ignore signatures; permissive: refuse bad ones, accept unsigned; require: refuse unsigned too. */
  verification: z.enum(['off', 'permissive', 'require']).default('off'),
  /** How long a claim protects an executing intent from other replicas; must exceed every tool timeout. */
  leaseMs: positiveInt.default(300_000),
  /** How long a completed intent's result is kept for redeliveries (the effects bucket's TTL). */
  resultTtlMs: positiveInt.default(86_400_000),
  /** Default per-call tool timeout. */
  toolTimeoutMs: positiveInt.default(60_000),
  /** Intents executing at once per replica. */
  maxInFlight: positiveInt.default(64),
  /** Redelivery deadline of an unacknowledged intent; running tools are kept alive with heartbeats. */
  ackWaitMs: positiveInt.default(30_000),
  /** The built-in `http` tool: POSTs the intent's arguments to this URL with the intent id as `Idempotency-Key`. */
  httpToolUrl: z.url().optional(),
});

/**
 * The long-term memory tier. Unset `uri` = the tier is off: no store is built, no I/O happens.
 * The URI is validated here, at config load, without importing any database client.
 */
export const LongTermConfigSchema = z.strictObject({
  /**
   * Backend URI: `memory://`, `sqlite://<path>`, `redis://…`, `postgresql://…`, `bigtable://…`, `firestore://…` (see
   * `parseLongTermUri`). Secrets in it are redacted from every error and log line.
   */
  uri: z
    .string()
    .min(1)
    .optional()
    .superRefine((uri, ctx) => {
      if (uri === undefined) return;
      try {
        parseLongTermUri(uri);
      } catch (error) {
        ctx.addIssue({ code: 'custom', message: (error as Error).message });
      }
    }),
  /**
   * Whether activators use the tier (through the memory-store service). Default: on when `uri` is
   * set. Activators never open the backend, so give them `enabled: true`
   * (`AGENTS_LONGTERM_ENABLED=true`) rather than the URI and its credentials.
   */
  enabled: z.boolean().optional(),
  /** Retention per memory type in ms (0 = indefinite), over the defaults of seed 004; applied when a record is written. */
  retentionMs: z.record(z.string().regex(MEMORY_TYPE_PATTERN, 'must be a memory type name'), z.number().int().nonnegative()).default({}),
  /** How often the memory-store deletes expired rows in the background (reads hide them at once). */
  sweepEveryMs: positiveInt.default(60_000),
  /** How long the memory-store lets one backend operation run before answering `deadline_exceeded` (retryable). */
  deadlineMs: positiveInt.default(5_000),
  /** How long a client waits for the memory-store's reply; keep it above `deadlineMs`. */
  requestTimeoutMs: positiveInt.default(7_500),
});

/**
 * Each service's operations listener: `GET /metrics`, `/healthz` and `/readyz`, separate from any
 * API port (ingress keeps `ingress.httpPort`). Several services on one machine need distinct ports.
 */
export const OpsConfigSchema = z.strictObject({
  /** Address to bind (`AGENTS_OPS_HOST`); a pod sets 0.0.0.0 so the kubelet and Prometheus reach it. */
  host: z.string().min(1).default('127.0.0.1'),
  /** Port (`AGENTS_OPS_PORT`); 0 picks a free port, which the service logs (`ops listening on <url>`). */
  port: z.number().int().min(0).max(65_535).default(9464),
  /** How often consumer lag (`num_pending`) is sampled for `/metrics`. */
  lagSampleMs: z.number().int().min(100).default(10_000),
});

/**
 * The operations console (`apps/console`): its HTTP listener (the single-page app and its JSON and
 * live-update API, deny by default through `auth`), the services' `/metrics` it reads for the
 * agents view, and the trace link of the key inspector.
 */
export const ConsoleConfigSchema = z.strictObject({
  /** Address of the console's HTTP listener. */
  httpHost: z.string().default('127.0.0.1'),
  /** Port of that listener (`AGENTS_CONSOLE_PORT`); 0 picks a free port, which the console logs (`console listening on <url>`). */
  httpPort: z.number().int().min(0).max(65_535).default(8090),
  /** The services' `/metrics` URLs (`AGENTS_CONSOLE_METRICS`, comma-separated) the agents view reads; nothing else stores metrics. */
  metricsTargets: z.array(z.url()).default([]),
  /** How often the console reads those `/metrics` (it keeps an hour of readings in memory). */
  scrapeEveryMs: z.number().int().min(1_000).default(15_000),
  /**
   * The key inspector's trace link (`AGENTS_CONSOLE_TRACE_URL`): `{keyDigest}` becomes the digest
   * spans carry as `agents.key`, `{agent}` the agent name, `{traceId}` the suspension's trace id
   * (empty when none). Empty: no link.
   */
  traceUrlTemplate: z
    .string()
    .default('http://localhost:16686/search?service=activator&tags=%7B%22agents.key%22%3A%22{keyDigest}%22%7D'),
  /** Directory of the built front end; empty: `dist/console-web` of the installation. */
  staticDir: z.string().default(''),
  /** At most this many stored messages are read per stream for one view (approvals, errors, a key's outputs). */
  maxMessagesPerView: positiveInt.default(5_000),
});

/** The whole runtime configuration shared by every service. */
export const RuntimeConfigSchema = z.strictObject({
  /** Subject prefix of the deployment; stream and bucket names derive from it. */
  prefix: subjectToken.default('agents'),
  /** Inbox partitions P; fixed at cluster creation (changing it moves keys). */
  partitions: z.number().int().min(1).max(10_000).default(16),
  /** Module paths exporting agents (absolute, or relative to the working directory). `AGENTS_MODULES` is one comma-separated list (`a.mjs,b.mjs`; spaces around commas are ignored, so a path cannot contain a comma) and replaces the file's whole list, `npm start`'s examples included. */
  agentModules: z.array(z.string().min(1)).default([]),
  nats: NatsConfigSchema.prefault({}),
  streams: StreamsConfigSchema.prefault({}),
  activator: ActivatorConfigSchema.prefault({}),
  ingress: IngressConfigSchema.prefault({}),
  /** The model provider activations call through `ctx.callModel`. */
  model: ModelConfigSchema.default({ provider: 'fake' }),
  /** More providers by name (each with its own protection), for `models` aliases to point at. */
  providers: z.record(z.string().regex(/^[a-z][a-z0-9_-]{0,63}$/, 'must be a provider name'), ModelConfigSchema).default({}),
  /** Model aliases: `ctx.callModel({ model: '<alias>' })` goes to the alias's provider and model. Unaliased names go to `model`. */
  models: z.record(aliasName, ModelAliasSchema).default({}),
  /** Price per model name as agents call it (alias or model id), in USD per million tokens: cost on spans and metrics. */
  prices: z
    .record(
      z.string().min(1),
      z.strictObject({
        /** USD per million input (prompt) tokens. */
        inputPerMillionUsd: z.number().nonnegative(),
        /** USD per million output (completion) tokens. */
        outputPerMillionUsd: z.number().nonnegative(),
      }),
    )
    .default({}),
  /** Token budgets per agent, over what each agent's definition sets (`budget`). */
  budgets: z
    .record(
      z.string().regex(/^[a-z][a-z0-9_-]{0,63}$/, 'must be an agent name'),
      z.strictObject({
        /** Tokens one attempt of an activation may use; a call that would exceed it fails the activation with `budget_exceeded`. */
        tokensPerActivation: positiveInt.optional(),
        /** Tokens one key may use in a rolling window of event time (committed activations in the window plus the running one). */
        tokensPerKey: z
          .strictObject({
            /** Tokens allowed inside the window. */
            tokens: positiveInt,
            /** The window's length in ms of event time. */
            windowMs: positiveInt,
          })
          .optional(),
        /** Tokens all keys of the agent may use together in one fixed window of event time (a counter in KV `<PREFIX>_BUDGETS` shared by every activator). */
        tokensPerAgent: z
          .strictObject({
            /** Tokens allowed inside the window. */
            tokens: positiveInt,
            /** The window's length in ms of event time; windows are aligned to multiples of it. */
            windowMs: positiveInt,
          })
          .optional(),
      }),
    )
    .default({}),
  /** Where each agent's handler runs, over what its definition sets (`isolation`): `worker` runs it in a worker thread that a timeout terminates. */
  isolation: z.record(z.string().regex(/^[a-z][a-z0-9_-]{0,63}$/, 'must be an agent name'), z.enum(['event-loop', 'worker'])).default({}),
  signing: SigningConfigSchema.prefault({}),
  effector: EffectorConfigSchema.prefault({}),
  longterm: LongTermConfigSchema.prefault({}),
  ops: OpsConfigSchema.prefault({}),
  console: ConsoleConfigSchema.prefault({}),
  /** Credentials the HTTP edges (console, ingress) accept: API key digests and JWT verification (docs/auth.md). */
  auth: AuthConfigSchema.prefault({}),
});

/** Every alias names a provider that exists (`default` or a key of `providers`). */
export function aliasProblems(config: Pick<RuntimeConfig, 'providers' | 'models'>): string[] {
  return Object.entries(config.models)
    .filter(([, alias]) => alias.provider !== 'default' && !(alias.provider in config.providers))
    .map(([name, alias]) => `models.${name}.provider: no provider named '${alias.provider}' (use 'default' or a key of providers)`);
}

/** The validated configuration. */
export type RuntimeConfig = z.infer<typeof RuntimeConfigSchema>;
/** What a config file or override may contain (everything optional). */
export type RuntimeConfigInput = z.input<typeof RuntimeConfigSchema>;
