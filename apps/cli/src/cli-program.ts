/**
 * The nats-agents command line as a commander program: every command with its arguments, options
 * and defaults, and the exit codes scripts branch on. `main.ts` parses `process.argv` with it;
 * `scripts/cli-reference.ts` renders `docs/cli.md` from the same definitions. Building the program
 * has no side effects: nothing connects until a command's action runs.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { resolve as resolvePath } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Command, InvalidArgumentError, Option } from 'commander';
import { DeliverPolicy, jetstreamManager } from '@nats-io/jetstream';
import { Kvm } from '@nats-io/kv';
import { AgentsClient, AgentsHttpClient, ErasureFailed, HttpRefused, redrive } from '#client';
import { loadAgentModules, loadClusterKeys, loadConfig, type RuntimeConfig } from '#config';
import { decodeActorDocument, decodeErrorRecord, StateDocumentCorrupt, type ActorDocument, decodeKeySnapshot, decodeToolIntent, encodeKeySnapshot, entityKeyHex, replaySnapshot, type ModelProvider } from '#core';
import { decodeRecordedResponse, FakeLlm, type FakeLlmRule } from '#providers';
import { createTopology, encodeKeyToken, keyFromText, topologyAddressing } from '#routing';
import { connectNats, documentCheck, provision } from '#transport';
import { copyLongTerm, NatsLongTermStore, restore, supersede } from '#longterm';
import type { ClusterKeys, LongTermRecord } from '#core';
import { keyDigest } from '#telemetry';
import { runLoad } from './load-run.js';
import { exportKeySnapshot } from './key-snapshot-export.js';
import { printReplayReport, printStep } from './replay-report.js';

/** The exit codes of every command: a closed vocabulary a script may branch on. */
export const ExitCode = {
  /** The command did what it was asked. */
  ok: 0,
  /** The command failed: a usage error, an unreachable or refusing server, a bad config, a non-retryable erasure failure. */
  failed: 1,
  /** The deployment answered, but not with what was asked: `publish --wait` got an error record; `bench` did not get an output for every event. */
  notAnswered: 2,
  /** `replay`: the replay differed from the recording (every divergence is printed). */
  diverged: 3,
  /** `replay`: the recording cannot decide (a model call the snapshot holds no response for). */
  irreproducible: 4,
  /** A retryable erasure failure (`EX_TEMPFAIL`): run the same command again. */
  tryAgain: 75,
} as const;
export type ExitCode = (typeof ExitCode)[keyof typeof ExitCode];

/** One line per exit code, in the words `docs/cli.md` uses. */
export const EXIT_CODE_MEANINGS: Readonly<Record<ExitCode, string>> = {
  [ExitCode.ok]: 'success',
  [ExitCode.failed]:
    'failure: a usage error (unknown command or option, missing or invalid argument), a connection or server error, an invalid config, an unknown `tail` stream, a long-term record that does not exist, an erasure that failed for good',
  [ExitCode.notAnswered]:
    '`publish --wait`: the event was answered by an error record (printed to stderr, or as `{"kind":"error",...}` with `--json`); `bench`: fewer outputs than events (error records or timed-out keys)',
  [ExitCode.diverged]: '`replay`: the replay diverged from the recording: an output, intent, approval request, error record, memory entry or the continuation differs (each is printed with its element)',
  [ExitCode.irreproducible]:
    "`replay`: the replay cannot decide: a model call the snapshot holds no response for, typically in an activation that completed before the snapshot and was not journaled (the deployment's replay journal off or aged out, or an older snapshot); give `--model-script` to answer it, or `--through` to stop before it",
  [ExitCode.tryAgain]:
    '`erase`: the erasure did not complete but is safe to repeat (no memory-store answered, an activator did not acknowledge the pause, or passes kept finding new data); run the same command again, with the same `--request-id` if you gave one',
};

/** The environment the CLI reads: `$AGENTS_CONFIG`, `$NATS_URL` and the other config variables, `$USER` for defaults. */
export type CliEnv = Readonly<Record<string, string | undefined>>;

/** The deployment's configuration, resolved from the global options and the environment. */
type ConfigOf = () => RuntimeConfig;

function integer(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0) throw new InvalidArgumentError('expected a non-negative integer');
  return n;
}

/** An option whose default is the caller's `$USER` (else `cli`); the help names the rule, not this machine's user. */
function userOption(flags: string, description: string, env: CliEnv): Option {
  return new Option(flags, description).default(env.USER ?? 'cli', '$USER, else "cli"');
}

/** `--http`: post through ingress's HTTP API (default `$AGENTS_HTTP_URL`) instead of NATS. */
function httpOption(env: CliEnv): Option {
  const option = new Option('--http <url>', "post through ingress's HTTP API at this base URL instead of NATS; default $AGENTS_HTTP_URL");
  return env.AGENTS_HTTP_URL !== undefined && env.AGENTS_HTTP_URL !== '' ? option.default(env.AGENTS_HTTP_URL, '$AGENTS_HTTP_URL') : option;
}

/** `--api-key`: the HTTP credential (default `$AGENTS_API_KEY`; prefer the variable: arguments show in `ps`). */
function apiKeyOption(): Option {
  return new Option('--api-key <key>', 'with --http: the API key or JWT to present (default $AGENTS_API_KEY; prefer the variable, arguments are visible to other users)');
}

/** The HTTP client for `--http`, with the credential from `--api-key` or `$AGENTS_API_KEY`. */
function httpClient(url: string, apiKey: string | undefined, env: CliEnv): AgentsHttpClient {
  const credential = apiKey ?? env.AGENTS_API_KEY;
  if (credential === undefined || credential.trim() === '') {
    throw new InvalidArgumentError(`--http ${url} needs a credential: set $AGENTS_API_KEY (or --api-key) to an API key or JWT`);
  }
  return new AgentsHttpClient({ baseUrl: url, credential });
}

/** Prints an HTTP refusal's problem document and fails the command. */
function reportRefusal(error: unknown): void {
  if (!(error instanceof HttpRefused)) throw error;
  console.error(`refused (${error.status} ${error.problem.reason}${error.problem.authReason !== undefined ? `/${error.problem.authReason}` : ''}): ${error.problem.detail}`);
  process.exitCode = ExitCode.failed;
}

/** The client over a connection with the deployment's credentials and TLS (the same as the services'). */
async function client(c: RuntimeConfig, keys?: ClusterKeys): Promise<AgentsClient> {
  return AgentsClient.fromConnection(await connectNats(c.nats, 'nats-agents-cli'), { prefix: c.prefix, partitions: c.partitions, ...(keys !== undefined ? { clusterKeys: keys } : {}) });
}

/**
 * The whole program. `env` stands in for `process.env` (tests and the reference generator pass
 * their own); each call returns a fresh program, so parsing one leaves no state behind.
 */
export function buildProgram(env: CliEnv = process.env): Command {
  const program = new Command();
  program
    .name('nats-agents')
    .description('Operate a nats-agents deployment: provision it, publish events, read outputs and state.')
    .option('-c, --config <file>', 'runtime config file (YAML); default $AGENTS_CONFIG')
    .option('-s, --server <url>', 'NATS URL(s); default $NATS_URL or nats://127.0.0.1:4222');

  const config: ConfigOf = () => {
    const options = program.opts<{ config?: string; server?: string }>();
    return loadConfig({ env, ...(options.config ? { file: options.config } : {}), ...(options.server ? { overrides: { nats: { url: options.server } } } : {}) });
  };

  addProvision(program, config);
  addPublish(program, config, env);
  addDecisions(program, config, env);
  addTail(program, config);
  addLongTermCopy(program);
  addState(program, config);
  addMemory(program, config);
  addErase(program, config, env);
  addBench(program, config);
  addKeyDigest(program, env);
  addSnapshot(program, config);
  addReplay(program);
  addErrors(program, config, env);
  return program;
}

function addErrors(program: Command, config: ConfigOf, env: CliEnv): void {
  const errors = program.command('errors').description('act on dead-lettered elements (error records)');
  errors
    .command('redrive')
    .description("re-publish the original events of an agent's error records with a reason to their keys, in order, once (derived ids; an audit record per event)")
    .requiredOption('--agent <name>', 'the agent whose records to redrive')
    .requiredOption('--reason <reason>', 'the error reason, e.g. activation_error')
    .option('--key <key>', 'only this key (text)')
    .option('--since <ms>', 'only records stored at or after this time (epoch ms)', integer)
    .addOption(userOption('--requested-by <who>', 'who asked (kept in the audit records)', env))
    .option('--json', 'print the report as JSON')
    .action(async (options: { agent: string; reason: string; key?: string; since?: number; requestedBy: string; json?: boolean }) => {
      const agents = await client(config());
      try {
        const report = await redrive(agents, {
          agent: options.agent,
          reason: options.reason,
          requestedBy: options.requestedBy,
          nowMs: Date.now(),
          ...(options.key !== undefined ? { key: keyFromText(options.key) } : {}),
          ...(options.since !== undefined ? { sinceMs: options.since } : {}),
        });
        if (options.json === true) console.log(JSON.stringify(report));
        else {
          console.log(`redrove ${report.published} event(s); ${report.alreadyRedriven} already redriven; ${report.skipped.length} skipped`);
          for (const skip of report.skipped) console.log(`  record ${skip.seq}: ${skip.why}`);
        }
      } finally {
        await agents.close();
      }
    });
}

function addKeyDigest(program: Command, env: CliEnv): void {
  program
    .command('key-digest')
    .description('print the digest spans carry as agents.key for a key (AGENTS_TRACE_KEYS=digest, the default; salted by $AGENTS_TRACE_KEY_SALT), to search traces by key')
    .argument('<key>', 'entity key (text)')
    .action((key: string) => {
      console.log(keyDigest(encodeKeyToken(keyFromText(key)), env.AGENTS_TRACE_KEY_SALT ?? ''));
    });
}

function addProvision(program: Command, config: ConfigOf): void {
  program
    .command('provision')
    .description('create or update every stream and bucket (idempotent)')
    .action(async () => {
      const c = config();
      const nc = await connectNats(c.nats, 'nats-agents-cli');
      const report = await provision(nc, await jetstreamManager(nc), createTopology({ prefix: c.prefix, partitions: c.partitions }), c.streams, {
        effectsTtlMs: c.effector.resultTtlMs,
        leaseTtlMs: c.activator.leaseTtlMs,
      });
      console.log(JSON.stringify({ created: report.created, updated: report.updated, unchanged: report.unchanged, maxPayload: report.maxPayload }, null, 2));
      for (const warning of report.warnings) console.warn(`warning: ${warning}`);
      await nc.drain();
    });
}

function addPublish(program: Command, config: ConfigOf, env: CliEnv): void {
  program
    .command('publish')
    .description('publish an event for a key; with --wait, print what the activation produced')
    .argument('<agent>', 'agent name')
    .argument('<key>', 'entity key (text)')
    .argument('[payload]', 'event body (JSON by convention)', '')
    .option('--event-time <ms>', "the client's event time in epoch ms: carried as Agents-Client-Time, never the activation clock (the server stamps that)", integer)
    .option('--msg-id <id>', 'idempotency id (Nats-Msg-Id)')
    .option('-w, --wait', 'wait for the output or error record and print it')
    .option('--timeout <ms>', 'how long --wait waits', integer, 30_000)
    .option('--json', 'with --wait: print {"kind":"output",...} or {"kind":"error",...} as one JSON line')
    .addOption(httpOption(env))
    .addOption(apiKeyOption())
    .action(async (agent: string, key: string, payload: string, options: { eventTime?: number; msgId?: string; wait?: boolean; timeout: number; json?: boolean; http?: string; apiKey?: string }) => {
      if (options.http !== undefined && !options.wait) {
        // Over HTTP, the msg id is the Idempotency-Key (stored once per credential inside the duplicate window).
        const http = httpClient(options.http, options.apiKey, env);
        try {
          const accepted = await http.publishEvent(agent, key, payload, {
            ...(options.eventTime !== undefined ? { eventTimeMs: options.eventTime } : {}),
            ...(options.msgId !== undefined ? { idempotencyKey: options.msgId } : {}),
          });
          console.log(JSON.stringify({ stream: accepted.stream, seq: accepted.seq, duplicate: accepted.duplicate }));
        } catch (error) {
          reportRefusal(error);
        }
        return;
      }
      if (options.http !== undefined) throw new InvalidArgumentError('--wait reads the answer over NATS: leave out --http (or --wait)');
      const c = config();
      const agents = await client(c);
      try {
        const publishOptions = { ...(options.eventTime !== undefined ? { eventTimeMs: options.eventTime } : {}), ...(options.msgId !== undefined ? { msgId: options.msgId } : {}) };
        if (!options.wait) {
          const ack = await agents.publishEvent(agent, key, payload, publishOptions);
          console.log(JSON.stringify({ stream: ack.stream, seq: ack.seq, duplicate: ack.duplicate }));
          return;
        }
        const answer = await agents.publishAndWait(agent, key, payload, { ...publishOptions, timeoutMs: options.timeout });
        if (options.json === true) {
          console.log(
            JSON.stringify(
              answer.kind === 'output'
                ? { kind: 'output', seq: answer.output.seq, msgId: answer.output.msgId, output: answer.output.text }
                : { kind: 'error', reason: answer.error.reason, detail: answer.error.detail, eventTimeMs: answer.error.eventTimeMs },
            ),
          );
          if (answer.kind === 'error') process.exitCode = ExitCode.notAnswered;
        } else if (answer.kind === 'output') {
          console.log(answer.output.text);
        } else {
          console.error(`error: ${answer.error.reason}${answer.error.detail ? `: ${answer.error.detail}` : ''}`);
          process.exitCode = ExitCode.notAnswered;
        }
      } finally {
        await agents.close();
      }
    });
}

function addDecisions(program: Command, config: ConfigOf, env: CliEnv): void {
  for (const decision of ['approve', 'deny'] as const) {
    program
      .command(decision)
      .description(`${decision} a pending approval request of a key (the first decision wins)`)
      .argument('<agent>', 'agent name')
      .argument('<key>', 'entity key (text)')
      .argument('<intentId>', 'the approval intent id (see `tail approval-requests`)')
      .addOption(userOption('--approver <name>', 'who decides (over --http the credential decides: an approver other than its principal is refused)', env))
      .option('--reason <text>', 'why', '')
      .addOption(httpOption(env))
      .addOption(apiKeyOption())
      .action(async function (this: Command, agent: string, key: string, intentId: string, options: { approver: string; reason: string; http?: string; apiKey?: string }) {
        if (options.http !== undefined) {
          const http = httpClient(options.http, options.apiKey, env);
          try {
            // The approver is the credential's principal; an explicit --approver is sent for the server to check.
            const explicit = this.getOptionValueSource('approver') === 'cli';
            const accepted = await http.decide(agent, key, { intentId, approved: decision === 'approve', reason: options.reason, decidedAtMs: Date.now(), ...(explicit ? { approver: options.approver } : {}) });
            console.log(JSON.stringify({ decision, intentId, stream: accepted.stream, seq: accepted.seq, duplicate: accepted.duplicate }));
          } catch (error) {
            reportRefusal(error);
          }
          return;
        }
        const c = config();
        // An operator holding the cluster keyring (signing.keyId + signing.keyringFile, e.g. npm
        // start's deploy/local.yaml) seals the decision, which a verifying activator requires.
        const agents = await client(c, loadClusterKeys(c.signing, { env, readFile: (path) => readFileSync(path, 'utf8') }));
        try {
          const ack = await agents.publishApproval(agent, key, {
            intentId,
            approved: decision === 'approve',
            approver: options.approver,
            reason: options.reason,
            decidedAtMs: Date.now(),
          });
          console.log(JSON.stringify({ decision, intentId, stream: ack.stream, seq: ack.seq, duplicate: ack.duplicate }));
        } finally {
          await agents.close();
        }
      });
  }
}

function addTail(program: Command, config: ConfigOf): void {
  program
    .command('tail')
    .description('print outputs, error records, intents or approval requests as they arrive (history first with --all)')
    .argument('<what>', 'outputs | errors | intents | approval-requests')
    .option('--agent <name>', 'only this agent')
    .option('--key <key>', 'only this key (outputs)')
    .option('--all', 'start from the oldest stored message')
    .option('--json', 'one JSON object per line (for scripts)')
    .option('--count <n>', 'exit after printing this many messages', integer)
    .action(async (what: string, options: { agent?: string; key?: string; all?: boolean; json?: boolean; count?: number }) => {
      const c = config();
      const agents = await client(c);
      const topology = agents.topology;
      const token = options.key !== undefined ? encodeKeyToken(keyFromText(options.key)) : '*';
      const subjects: Record<string, [string, string]> = {
        outputs: [topology.outputFilter(options.agent, options.key !== undefined ? token : undefined), topology.streams.output.name],
        errors: [topology.errorsFilter(options.agent), topology.streams.errors.name],
        intents: [`${topology.prefix}.intents.${options.agent ?? '*'}.*`, topology.streams.intents.name],
        'approval-requests': [`${topology.prefix}.approval-requests.${options.agent ?? '*'}.${token}`, topology.streams.intents.name],
      };
      const target = subjects[what];
      if (target === undefined) throw new InvalidArgumentError(`unknown stream '${what}' (outputs | errors | intents | approval-requests)`);
      const [subject, stream] = target;
      const consumer = await agents.js.consumers.get(stream, { filter_subjects: subject, deliver_policy: options.all ? DeliverPolicy.All : DeliverPolicy.New });
      const messages = await consumer.consume();
      process.once('SIGINT', () => void messages.close());
      const text = new TextDecoder();
      let printed = 0;
      if (options.count === 0) messages.stop();
      for await (const msg of messages) {
        if (what === 'outputs') {
          const seq = msg.headers?.get('Agents-Seq') ?? '?';
          if (options.json === true) console.log(JSON.stringify({ subject: msg.subject, seq, streamSeq: msg.seq, output: text.decode(msg.data) }));
          else console.log(`${msg.subject} seq=${seq} ${text.decode(msg.data)}`);
        } else if (what === 'intents' || what === 'approval-requests') {
          const intent = decodeToolIntent(msg.data);
          const key = text.decode(intent.entityKey);
          if (options.json === true) {
            console.log(JSON.stringify({ subject: msg.subject, intentId: intent.intentId, agent: intent.agent, key, tool: intent.toolName, args: intent.argsJson, expiresAtMs: intent.expiresAtMs }));
          } else {
            console.log(`${msg.subject} intent=${intent.intentId} key=${key} tool=${intent.toolName} args=${intent.argsJson} expires_at=${intent.expiresAtMs}`);
          }
        } else {
          const r = decodeErrorRecord(msg.data);
          const key = text.decode(r.entityKey);
          if (options.json === true) console.log(JSON.stringify({ subject: msg.subject, agent: r.agent, key, reason: r.reason, detail: r.detail, eventTimeMs: r.eventTimeMs }));
          else console.log(`${msg.subject} key=${key} reason=${r.reason} detail=${r.detail} event_time=${r.eventTimeMs}`);
        }
        printed += 1;
        // Stop, then leave the loop: messages already buffered (--all) would otherwise still print.
        if (options.count !== undefined && printed >= options.count) {
          messages.stop();
          break;
        }
      }
      await agents.close();
    });
}

function addLongTermCopy(program: Command): void {
  program
    .command('longterm-copy')
    .description('copy every long-term row from one backend to another, verbatim (re-runnable: the seq guard keeps newer rows)')
    .argument('<from>', 'source URI (memory:// | sqlite://path | redis://… | postgresql://…)')
    .argument('<to>', 'target URI')
    .action(async (from: string, to: string) => {
      const report = await copyLongTerm(from, to, { onBatch: (p) => process.stderr.write(`read ${p.read}, applied ${p.applied}…\n`) });
      console.log(JSON.stringify(report));
    });
}

function addState(program: Command, config: ConfigOf): void {
  program
    .command('state')
    .description("print an actor's committed state, decoded; --reset repairs a quarantined key (state_quarantined records)")
    .argument('<agent>', 'agent name')
    .argument('<key>', 'entity key (text)')
    .option('--reset', 'delete the key\'s document when it is corrupt or impossible (a quarantined key); then redrive its state_quarantined records')
    .option('--force', 'with --reset: delete even a document that reads as valid (its memory and pending work are lost)')
    .action(async (agent: string, key: string, options: { reset?: boolean; force?: boolean }) => {
      const c = config();
      const nc = await connectNats(c.nats, 'nats-agents-cli');
      try {
        const topology = createTopology({ prefix: c.prefix, partitions: c.partitions });
        const kv = await new Kvm(nc).open(topology.buckets.state, { bindOnly: true });
        const stateKey = topology.stateKey(agent, encodeKeyToken(keyFromText(key)));
        const entry = await kv.get(stateKey);
        if (entry === null || entry.operation !== 'PUT') {
          console.log('no committed state');
          return;
        }
        let doc: ActorDocument | undefined;
        let problem: string | undefined;
        try {
          doc = decodeActorDocument(entry.value);
        } catch (error) {
          if (!(error instanceof StateDocumentCorrupt)) throw error;
          problem = error.message;
        }
        if (doc !== undefined && options.reset === true) {
          const jsm = await jetstreamManager(nc);
          problem = await documentCheck({ jsm, inboxStream: topology.streams.inbox.name, leasesStream: `KV_${topology.buckets.leases}` })(doc);
        }
        if (options.reset === true) {
          if (problem === undefined && options.force !== true) {
            throw new InvalidArgumentError(`the document of ${stateKey} reads as valid; refusing to delete it without --force`);
          }
          // Only the revision that was read: a commit that landed since is never deleted blind.
          await kv.delete(stateKey, { previousSeq: entry.revision });
          console.log(JSON.stringify({ reset: stateKey, revision: entry.revision, why: problem ?? 'forced', next: `nats-agents errors redrive --agent ${agent} --reason state_quarantined --key <key>` }));
          return;
        }
        if (doc === undefined) {
          console.log(JSON.stringify({ revision: entry.revision, bytes: entry.value.length, corrupt: problem, repair: 'nats-agents state <agent> <key> --reset' }, null, 2));
          return;
        }
        const text = new TextDecoder();
        console.log(
          JSON.stringify(
            {
              revision: entry.revision,
              stateSchemaVersion: doc.stateSchemaVersion,
              key: text.decode(doc.entityKey),
              keyHex: entityKeyHex(doc.entityKey),
              seq: doc.seq,
              lastAppliedSeq: doc.lastAppliedSeq,
              ownerEpoch: doc.ownerEpoch,
              memory: doc.memory.entries.map((e) => ({ key: e.key, bytes: e.value.length, lastAccessMs: e.lastAccessMs })),
              memoryBytes: doc.memory.totalBytes,
              replayCache: doc.llmCache.entries.map((e) => ({ cacheKey: e.cacheKey, bytes: e.response.length, digestOnly: e.digestOnly })),
              continuation: doc.continuation ? { ...doc.continuation, snapshot: doc.continuation.snapshot.length, traceId: undefined } : null,
              pending: doc.pending.map((i) => ({ intentId: i.intentId, tool: i.toolName, kind: i.kind, expiresAtMs: i.expiresAtMs })),
              outbox: doc.outbox.map((o) => ({ subject: o.subject, msgId: o.msgId, bytes: o.payload.length })),
              timers: doc.timers,
              // Held in backoff after a retryable failure: the element, its failed attempts, when it runs next.
              hold: doc.hold ?? null,
            },
            null,
            2,
          ),
        );
      } finally {
        await nc.drain();
      }
    });
}

/** A long-term record as the CLI prints it (the value as UTF-8 text). */
function printable(record: LongTermRecord): Record<string, unknown> {
  return {
    key: record.key,
    value: new TextDecoder().decode(record.value),
    type: record.type,
    seq: record.seq,
    updatedAtMs: record.updatedAtMs,
    expiresAtMs: record.expiresAtMs,
    supersededBy: record.supersededBy,
    supersededAtMs: record.supersededAtMs,
    confidence: record.confidence,
  };
}

function addMemory(program: Command, config: ConfigOf): void {
  /** Runs `work` with the long-term client of the configured deployment (served by the memory-store). */
  async function withLongTerm<T>(work: (store: NatsLongTermStore) => Promise<T>): Promise<T> {
    const c = config();
    const nc = await connectNats(c.nats, 'nats-agents-cli');
    try {
      return await work(new NatsLongTermStore(nc, createTopology({ prefix: c.prefix, partitions: c.partitions }), { timeoutMs: c.longterm.requestTimeoutMs }));
    } finally {
      await nc.drain();
    }
  }

  const memory = program.command('memory').description("inspect and curate an entity's long-term memory (through the memory-store service)");

  memory
    .command('search')
    .description('records of one (agent, entity) whose keys start with a prefix, in key order')
    .argument('<agent>', 'agent name')
    .argument('<key>', 'entity key (text)')
    .argument('[prefix]', 'record key prefix', '')
    .option('--limit <n>', 'at most this many', integer, 50)
    .option('--include-superseded', 'also show retired records')
    .action(async (agent: string, key: string, prefix: string, options: { limit: number; includeSuperseded?: boolean }) => {
      const records = await withLongTerm((store) =>
        store.search({ entityKey: keyFromText(key), agent }, prefix, Date.now(), { limit: options.limit, includeSuperseded: options.includeSuperseded === true }),
      );
      console.log(JSON.stringify(records.map(printable), null, 2));
    });

  memory
    .command('history')
    .description('the supersede chain through a record: what it replaced (oldest first), itself, what replaced it')
    .argument('<agent>', 'agent name')
    .argument('<key>', 'entity key (text)')
    .argument('<record-key>', 'long-term record key')
    .action(async (agent: string, key: string, recordKey: string) => {
      const chain = await withLongTerm((store) => store.history({ entityKey: keyFromText(key), agent }, recordKey, Date.now()));
      console.log(JSON.stringify(chain.map(printable), null, 2));
    });

  for (const [name, description] of [
    ['supersede', 'retire a record in favour of another (kept, hidden from retrieval, reversible with restore)'],
    ['restore', 'make a retired record active again'],
  ] as const) {
    memory
      .command(name)
      .description(description)
      .argument('<agent>', 'agent name')
      .argument('<key>', 'entity key (text)')
      .argument('<record-key>', 'long-term record key')
      .argument(name === 'supersede' ? '<by-key>' : '[by-key]', 'the replacing record key (supersede only)')
      .action(async (agent: string, key: string, recordKey: string, byKey: string | undefined) => {
        const scope = { entityKey: keyFromText(key), agent };
        await withLongTerm(async (store) => {
          const [record] = await store.search(scope, recordKey, Date.now(), { limit: 1, includeSuperseded: true });
          if (record === undefined || record.key !== recordKey) throw new Error(`no live record ${JSON.stringify(recordKey)} for ${agent}/${key}`);
          // One above the record's seq: a late duplicate of the original write cannot undo this.
          const next = name === 'supersede' ? supersede(record, byKey ?? '', Date.now()) : restore(record);
          await store.upsert([next]);
          console.log(JSON.stringify(printable(next), null, 2));
        });
      });
  }
}

function addErase(program: Command, config: ConfigOf, env: CliEnv): void {
  program
    .command('erase')
    .description('erase an entity everywhere: actor state of every agent, timers, intents, effector records, stream messages, long-term rows; prints the report (counts only) once the audit record is written')
    .argument('<key>', 'entity key (text; with --base64, base64 bytes)')
    .option('--base64', 'the key argument is base64-encoded bytes')
    .option('--request-id <id>', 'names the erasure in the audit record; repeat a failed erasure with the same id')
    .addOption(userOption('--requested-by <who>', 'who asked (kept in the audit record)', env))
    .option('--shards <n>', 'also erase the hot-key shards key#0 … key#<n-1>', integer)
    .option('--timeout <ms>', 'how long to wait for the report', integer, 120_000)
    .option('--json', 'print the report as JSON')
    .action(async (key: string, options: { base64?: boolean; requestId?: string; requestedBy: string; shards?: number; timeout: number; json?: boolean }) => {
      const agents = await client(config());
      try {
        const report = await agents.erase(options.base64 === true ? new Uint8Array(Buffer.from(key, 'base64')) : key, {
          requestedBy: options.requestedBy,
          timeoutMs: options.timeout,
          ...(options.requestId !== undefined ? { requestId: options.requestId } : {}),
          ...(options.shards !== undefined ? { shards: options.shards } : {}),
        });
        if (options.json === true) {
          console.log(JSON.stringify(report));
        } else {
          console.log(`erased entity sha256:${report.entityKeySha256} (request ${report.requestId}) in ${report.passes} passes`);
          for (const [place, n] of Object.entries(report.erased)) console.log(`  ${place}: ${n}`);
        }
      } catch (error) {
        if (!(error instanceof ErasureFailed)) throw error;
        console.error(`erasure failed (${error.code}${error.retryable ? ', retryable: run the same command again' : ''}): ${error.message}`);
        process.exitCode = error.retryable ? ExitCode.tryAgain : ExitCode.failed;
      } finally {
        await agents.close();
      }
    });
}

function addBench(program: Command, config: ConfigOf): void {
  program
    .command('bench')
    .description('drive a closed-loop load through a running deployment and report activations/s and publish-to-output latency (the repository benchmark against a bare-JetStream baseline is `npm run bench`)')
    .argument('<agent>', 'agent to load; it must answer each event with an output or an error record')
    .option('--events <n>', 'events to publish', integer, 1_000)
    .option('--keys <n>', 'distinct entity keys (event i goes to key i mod keys)', integer, 100)
    .option('--concurrency <n>', 'events in flight at once (at most one per key)', integer, 50)
    .option('--payload <text>', 'event body; {{key}}, {{n}} (per-key event number) and {{i}} are substituted', '{"bench":{{i}},"n":{{n}}}')
    .option('--key-prefix <prefix>', 'key names are <prefix>-<i>; default a fresh prefix per run')
    .option('--timeout <ms>', 'how long one event may take before its key is given up', integer, 30_000)
    .option('--json', 'print the report as one JSON line')
    .action(async (agent: string, options: { events: number; keys: number; concurrency: number; payload: string; keyPrefix?: string; timeout: number; json?: boolean }) => {
      const agents = await client(config());
      try {
        const report = await runLoad(agents, {
          agent,
          events: options.events,
          keys: options.keys,
          concurrency: options.concurrency,
          payload: options.payload,
          keyPrefix: options.keyPrefix ?? `bench-${Date.now().toString(36)}`,
          timeoutMs: options.timeout,
        });
        if (options.json === true) {
          console.log(JSON.stringify(report));
        } else {
          const l = report.latencyMs;
          console.log(`${report.agent}: ${report.completed}/${report.events} outputs over ${report.keys} keys in ${report.durationMs} ms, ${report.activationsPerSecond} activations/s at concurrency ${report.concurrency}`);
          if (l !== undefined) console.log(`publish → output latency ms: p50 ${l.p50}, p90 ${l.p90}, p99 ${l.p99}, max ${l.max}`);
          for (const [reason, n] of Object.entries(report.errors)) console.log(`error records (${reason}): ${n}`);
          if (report.timedOut > 0) console.log(`timed out: ${report.timedOut} (keys given up; ${report.skipped} events not sent)`);
        }
        if (report.completed < report.events) process.exitCode = ExitCode.notAnswered;
      } finally {
        await agents.close();
      }
    });
}

function addSnapshot(program: Command, config: ConfigOf): void {
  program
    .command('snapshot')
    .description("write one versioned file with what the deployment holds about a key: committed state, inbox elements (applied and not), outputs, intents, approval requests, error records, effector records, the replay journal's model responses (personal data: see docs/memory.md)")
    .argument('<agent>', 'agent name')
    .argument('<key>', 'entity key (text)')
    .option('-o, --out <file>', 'write the snapshot here (default: stdout)')
    .option('--redact', 'without the raw key and payloads (sizes and sha256 digests only), for sharing; such a file cannot be replayed')
    .action(async (agent: string, key: string, options: { out?: string; redact?: boolean }) => {
      const c = config();
      const nc = await connectNats(c.nats, 'nats-agents-cli');
      try {
        const topology = createTopology({ prefix: c.prefix, partitions: c.partitions });
        const snapshot = await exportKeySnapshot(nc, topology, { agent, key: keyFromText(key), redact: options.redact === true, nowMs: Date.now() });
        const bytes = encodeKeySnapshot(snapshot);
        if (options.out === undefined) process.stdout.write(bytes);
        else {
          writeFileSync(options.out, bytes, { mode: 0o600 });
          console.error(`wrote ${options.out}: ${snapshot.inbox.length} inbox elements, ${snapshot.outputs.length} outputs, ${snapshot.intents.length} intents, ${snapshot.errors.length} error records, ${snapshot.journal.length} journaled activations${snapshot.redacted ? ' (redacted)' : ''}`);
        }
      } finally {
        await nc.drain();
      }
    });
}

function addReplay(program: Command): void {
  program
    .command('replay')
    .description('re-run a snapshot offline (no NATS) with the given agent modules and report every divergence from the recording; exit 3 when anything diverged, 4 when a model response is missing')
    .argument('<file>', 'a snapshot file (`nats-agents snapshot`)')
    .requiredOption('--modules <paths>', 'agent module paths, comma-separated (as AGENTS_MODULES)')
    .option('--through <n>', 'replay only the first n recorded elements', integer)
    .option('--print-state', 'print the state after each element')
    .option('--model-script <module>', 'answer model calls the snapshot holds no response for with this fake-model script (exports `rules`)')
    .option('--json', 'print every step and the report as JSON lines')
    .action(async (file: string, options: { modules: string; through?: number; printState?: boolean; modelScript?: string; json?: boolean }) => {
      const snapshot = decodeKeySnapshot(Uint8Array.from(readFileSync(file)));
      const agents = await loadAgentModules(
        options.modules.split(',').map((p) => p.trim()).filter((p) => p.length > 0),
        process.cwd(),
      );
      const fallback = options.modelScript === undefined ? undefined : await scriptedModel(options.modelScript);
      const topology = createTopology({ prefix: snapshot.source.prefix, partitions: snapshot.source.partitions });
      const report = await replaySnapshot(snapshot, {
        agents: agents.values(),
        addressing: topologyAddressing(topology),
        timers: { setTimeout: (callback, ms) => { const t = setTimeout(callback, ms); return () => clearTimeout(t); } },
        monotonicMs: () => performance.now(),
        // Recorded responses decode as the deployment's provider router decoded them when fresh.
        decode: decodeRecordedResponse,
        ...(fallback ? { fallback } : {}),
        ...(options.through !== undefined ? { through: options.through } : {}),
        onStep: (step) => printStep(step, { json: options.json === true, printState: options.printState === true }),
      });
      printReplayReport(report, { json: options.json === true });
      if (report.outcome === 'diverged') process.exitCode = ExitCode.diverged;
      if (report.outcome === 'irreproducible') process.exitCode = ExitCode.irreproducible;
    });
}

/** The fake model of a script module (`rules`, as `AGENTS_MODEL_SCRIPT`). */
async function scriptedModel(path: string): Promise<ModelProvider> {
  const module = (await import(pathToFileURL(resolvePath(path)).href)) as { rules?: readonly FakeLlmRule[]; default?: { rules?: readonly FakeLlmRule[] } };
  return new FakeLlm({ rules: module.rules ?? module.default?.rules ?? [] });
}
