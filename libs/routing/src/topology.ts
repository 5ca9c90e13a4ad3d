/**
 * The topology: every subject, stream and bucket name of the public contract (ARCHITECTURE.md §3),
 * derived from one subject prefix and the partition count P. Nothing else in the runtime spells
 * a subject by hand, so a deployment's prefix changes every name consistently, and every subject
 * a publisher builds carries a canonical key token and the key's own partition (invariant 4:
 * one key, one inbox lane, one owner).
 *
 * Builders validate their inputs and throw (`RoutingError`, `KeyTokenError`): a malformed name is
 * a bug in the caller, never a subject worth publishing. Parsers return `undefined` instead,
 * because their input comes off the wire. Pure: no side effects on import.
 */
import { AGENT_NAME_PATTERN, isErrorReason } from '#core';
import type { ErrorReason } from '#core';
import { KeyTokenError, RoutingError } from './errors.js';
import { isInboxKind } from './inbox-kind.js';
import type { InboxKind } from './inbox-kind.js';
import { IngestLane, isIngestLane } from './ingest-lane.js';
import { isCanonicalKeyToken } from './key-token.js';
import { assertPartitionCount, partitionOf } from './partition.js';

/**
 * The agent token of error records about messages whose agent token is not a valid agent name
 * (`<prefix>.errors._.<reason>`): ingress must still say why it refused them.
 */
export const UNNAMED_AGENT = '_';

/** The subject prefix used when a deployment configures none. */
export const DEFAULT_SUBJECT_PREFIX = 'agents';

/**
 * A valid subject prefix: ONE subject token of `[A-Za-z0-9_-]`, at most 64 characters, so that
 * its uppercased form (with `-` → `_`) is also a valid stream and KV bucket name. Prefixes that
 * differ only in case or in `-`/`_` share stream and bucket names: NEVER run two such deployments
 * on one account.
 */
export const SUBJECT_PREFIX_PATTERN = /^[A-Za-z0-9_-]{1,64}$/;

/**
 * A valid tool name (the last token of `<prefix>.intents.<agent>.<tool>`): a lowercase letter,
 * then `[a-z0-9_-]`, at most 64 characters — the same shape as agent names. No `.`: a tool name
 * is exactly one subject token. Memory-service operations (`<prefix>.memory.<op>`) follow it too.
 */
export const TOOL_NAME_PATTERN = /^[a-z][a-z0-9_-]{0,63}$/;

/** What a topology is built from. */
export interface TopologyOptions {
  /** The subject prefix; defaults to {@link DEFAULT_SUBJECT_PREFIX}. Must match {@link SUBJECT_PREFIX_PATTERN}. */
  readonly prefix?: string;
  /** P, the partition count fixed at cluster creation (`1..MAX_PARTITIONS`). */
  readonly partitions: number;
}

/** A stream's name and the subjects it captures, as provisioning creates it. */
export interface StreamSpec {
  readonly name: string;
  readonly subjects: readonly string[];
}

/** The streams of the contract (a type alias, so `Object.values` yields `StreamSpec[]`). */
export type TopologyStreams = {
  /** `<PREFIX>_INGEST`: events, tool results and approvals as published from outside. */
  readonly ingest: StreamSpec;
  /** `<PREFIX>_INBOX`: the partitioned internal lane every state change goes through. */
  readonly inbox: StreamSpec;
  /** `<PREFIX>_OUTPUT`: agent outputs. */
  readonly output: StreamSpec;
  /** `<PREFIX>_INTENTS`: tool intents and approval requests. */
  readonly intents: StreamSpec;
  /** `<PREFIX>_ERRORS`: error records. */
  readonly errors: StreamSpec;
  /** `<PREFIX>_AUDIT`: erasure audit records (hashes and counts, never entity data), kept apart from everything erasure purges. */
  readonly audit: StreamSpec;
  /**
   * `<PREFIX>_JOURNAL`: the replay journal, one message per completed activation that called the
   * model, holding its model responses (decision 0073). No service consumes it: `snapshot` reads a
   * key's by subject, erasure purges it.
   */
  readonly journal: StreamSpec;
};

/** The KV buckets of the contract (a type alias, so `Object.values` yields `string[]`). */
export type TopologyBuckets = {
  /** `<PREFIX>_STATE`: one actor document per key, at {@link Topology.stateKey}. */
  readonly state: string;
  /** `<PREFIX>_LEASES`: partition leases (the ownership authority). */
  readonly leases: string;
  /** `<PREFIX>_MEMBERS`: activator membership heartbeats. */
  readonly members: string;
  /** `<PREFIX>_TIMERS`: the per-partition timer index. */
  readonly timers: string;
  /** `<PREFIX>_EFFECTS`: effector claims and results, keyed by intent id. */
  readonly effects: string;
  /** `<PREFIX>_ERASURES`: entity pauses of erasures in progress (keyed by the sha256 of the key) and the members' acknowledgements. */
  readonly erasures: string;
  /** `<PREFIX>_BUDGETS`: the per-agent token counters (one entry per agent, its recent windows). */
  readonly budgets: string;
};

/** A parsed inbox subject `<prefix>.inbox.<p>.<agent>.<key>.<kind>`, fully validated. */
export interface InboxAddress {
  readonly partition: number;
  readonly agent: string;
  readonly token: string;
  readonly kind: InboxKind;
}

/**
 * A parsed ingest subject `<prefix>.<lane>.<agent>.<key>`. Only its shape is checked: `agent` and
 * `token` are as published, so ingress can tell an unknown agent or an invalid key
 * (`decodeKeyToken`) from a malformed subject.
 */
export interface IngestAddress {
  readonly lane: IngestLane;
  readonly agent: string;
  readonly token: string;
}

/**
 * Every name of one deployment's public contract. Obtain one from {@link createTopology}.
 * Arguments named `token` are canonical key tokens (`encodeKeyToken`), `agent` matches
 * `AGENT_NAME_PATTERN`; builders throw `KeyTokenError` / `RoutingError` otherwise.
 */
export interface Topology {
  /** The subject prefix, e.g. `agents`. */
  readonly prefix: string;
  /** P, the partition count. */
  readonly partitions: number;
  /** Stream names and the subjects each captures. */
  readonly streams: TopologyStreams;
  /** KV bucket names. */
  readonly buckets: TopologyBuckets;
  /** The subscription filter of the long-term memory service: `<prefix>.memory.*`. */
  readonly memoryFilter: string;

  /** The key's partition, `partitionOf(token, partitions)`. */
  partitionOf(token: string): number;
  /** `<prefix>.events.<agent>.<token>`: where events for a key are published. */
  events(agent: string, token: string): string;
  /** `<prefix>.results.<agent>.<token>`: where tool results for a key are published. */
  results(agent: string, token: string): string;
  /** `<prefix>.approvals.<agent>.<token>`: where approval decisions for a key are published. */
  approvals(agent: string, token: string): string;
  /** `<prefix>.<lane>.<agent>.<token>`: the ingest subject of any lane. */
  ingest(lane: IngestLane, agent: string, token: string): string;
  /**
   * `<prefix>.inbox.<partition>.<agent>.<token>.<kind>`: the key's inbox lane.
   *
   * @throws {RoutingError} when `partition` is not the key's partition (`partitionOf(token)`): a
   * key on two partitions would have two owners.
   */
  inbox(partition: number, agent: string, token: string, kind: InboxKind): string;
  /** `<prefix>.inbox.<partition>.>`: the filter of one partition's consumer. */
  inboxPartitionFilter(partition: number): string;
  /** `<prefix>.output.<agent>.<token>`: where the key's outputs are published. */
  output(agent: string, token: string): string;
  /** `<prefix>.intents.<agent>.<tool>`: where the agent's intents for `tool` are published. */
  intents(agent: string, tool: string): string;
  /** `<prefix>.approval-requests.<agent>.<token>`: where the key's approval requests are published. */
  approvalRequests(agent: string, token: string): string;
  /** `<prefix>.errors.<agent>.<reason>`: where the agent's error records of `reason` are published ({@link UNNAMED_AGENT} for an unreadable agent). */
  errors(agent: string, reason: ErrorReason): string;
  /** `<prefix>.memory.<op>`: the long-term memory service's request subject for `op`. */
  memory(op: string): string;
  /** `<prefix>.admin.<op>`: an operator request served by the memory-store service (`erase`). */
  admin(op: string): string;
  /** `<prefix>.audit.erasure`: where erasure audit records are published. */
  readonly auditErasure: string;
  /**
   * `<prefix>.journal.<agent>.<digest>`: the key's replay journal. `digest` is the entity digest
   * (`entityDigest(key)`, 64 lowercase hex), not the key token: the journal holds model responses,
   * and its subjects name the key no more than the erasure markers do.
   *
   * @throws {RoutingError} when `digest` is not 64 lowercase hex characters
   */
  journal(agent: string, digest: string): string;
  /** `<prefix>.output.<agent|*>.<token|*>`: a subscription filter over outputs (omitted parts match any). */
  outputFilter(agent?: string, token?: string): string;
  /** `<prefix>.errors.<agent|*>.<reason|*>`: a subscription filter over error records. */
  errorsFilter(agent?: string, reason?: ErrorReason): string;
  /** `<agent>.<token>`: the key of the actor document in the state bucket. */
  stateKey(agent: string, token: string): string;
  /** Parses an inbox subject of this topology; `undefined` unless every part is valid (and the partition is the key's). */
  parseInboxSubject(subject: string): InboxAddress | undefined;
  /** Parses an ingest subject of this topology; `undefined` for another prefix, an unknown lane, an empty token or a wrong token count. */
  parseIngestSubject(subject: string): IngestAddress | undefined;
}

/**
 * Builds the topology of one deployment.
 *
 * @throws {RoutingError} when the prefix does not match {@link SUBJECT_PREFIX_PATTERN} or the
 * partition count is not an integer in `1..MAX_PARTITIONS`.
 * @example
 * ```ts
 * const topology = createTopology({ partitions: 256 });
 * const token = encodeKeyToken(keyFromText('user@example.com'));
 * topology.events('fraud-triage', token);  // 'agents.events.fraud-triage.user=40example=2Ecom'
 * topology.inbox(topology.partitionOf(token), 'fraud-triage', token, InboxKind.Event);
 * topology.buckets.state;                  // 'AGENTS_STATE'
 * ```
 */
export function createTopology(options: TopologyOptions): Topology {
  const prefix = options.prefix ?? DEFAULT_SUBJECT_PREFIX;
  if (!SUBJECT_PREFIX_PATTERN.test(prefix)) {
    throw new RoutingError(`subject prefix must be one subject token of [A-Za-z0-9_-] (1 to 64 characters), got ${JSON.stringify(prefix)}`);
  }
  assertPartitionCount(options.partitions);
  return new TopologyImpl(prefix, options.partitions);
}

const INBOX = 'inbox';
const OUTPUT = 'output';
const INTENTS = 'intents';
const APPROVAL_REQUESTS = 'approval-requests';
const ERRORS = 'errors';
const MEMORY = 'memory';
const ADMIN = 'admin';
const AUDIT = 'audit';
const JOURNAL = 'journal';
const DIGEST = /^[0-9a-f]{64}$/;
const PARTITION_TOKEN = /^(0|[1-9][0-9]{0,4})$/;

class TopologyImpl implements Topology {
  readonly streams: TopologyStreams;
  readonly buckets: TopologyBuckets;
  readonly memoryFilter: string;
  readonly auditErasure: string;

  constructor(
    readonly prefix: string,
    readonly partitions: number,
  ) {
    const upper = prefix.toUpperCase().replaceAll('-', '_');
    const p = prefix;
    const { Events, Results, Approvals } = IngestLane;
    this.streams = Object.freeze({
      // `>` rather than `*.*`: a malformed ingest subject is still captured, so ingress answers it
      // with an error record instead of the publisher's message vanishing.
      ingest: stream(`${upper}_INGEST`, [`${p}.${Events}.>`, `${p}.${Results}.>`, `${p}.${Approvals}.>`]),
      inbox: stream(`${upper}_INBOX`, [`${p}.${INBOX}.>`]),
      output: stream(`${upper}_OUTPUT`, [`${p}.${OUTPUT}.>`]),
      intents: stream(`${upper}_INTENTS`, [`${p}.${INTENTS}.>`, `${p}.${APPROVAL_REQUESTS}.>`]),
      errors: stream(`${upper}_ERRORS`, [`${p}.${ERRORS}.>`]),
      audit: stream(`${upper}_AUDIT`, [`${p}.${AUDIT}.>`]),
      journal: stream(`${upper}_JOURNAL`, [`${p}.${JOURNAL}.>`]),
    });
    this.buckets = Object.freeze({
      state: `${upper}_STATE`,
      leases: `${upper}_LEASES`,
      members: `${upper}_MEMBERS`,
      timers: `${upper}_TIMERS`,
      effects: `${upper}_EFFECTS`,
      erasures: `${upper}_ERASURES`,
      budgets: `${upper}_BUDGETS`,
    });
    this.memoryFilter = `${p}.${MEMORY}.*`;
    this.auditErasure = `${p}.${AUDIT}.erasure`;
    Object.freeze(this);
  }

  partitionOf(token: string): number {
    return partitionOf(token, this.partitions);
  }

  events(agent: string, token: string): string {
    return this.ingest(IngestLane.Events, agent, token);
  }

  results(agent: string, token: string): string {
    return this.ingest(IngestLane.Results, agent, token);
  }

  approvals(agent: string, token: string): string {
    return this.ingest(IngestLane.Approvals, agent, token);
  }

  ingest(lane: IngestLane, agent: string, token: string): string {
    if (!isIngestLane(lane)) throw new RoutingError(`unknown ingest lane ${JSON.stringify(lane)}`);
    return `${this.prefix}.${lane}.${checkAgent(agent)}.${checkToken(token)}`;
  }

  inbox(partition: number, agent: string, token: string, kind: InboxKind): string {
    this.checkPartition(partition);
    checkAgent(agent);
    checkToken(token);
    if (!isInboxKind(kind)) throw new RoutingError(`unknown inbox kind ${JSON.stringify(kind)}`);
    const owning = partitionOf(token, this.partitions);
    if (partition !== owning) {
      throw new RoutingError(`key token ${JSON.stringify(token)} belongs to partition ${owning}, not ${partition}`);
    }
    return `${this.prefix}.${INBOX}.${partition}.${agent}.${token}.${kind}`;
  }

  inboxPartitionFilter(partition: number): string {
    this.checkPartition(partition);
    return `${this.prefix}.${INBOX}.${partition}.>`;
  }

  output(agent: string, token: string): string {
    return `${this.prefix}.${OUTPUT}.${checkAgent(agent)}.${checkToken(token)}`;
  }

  intents(agent: string, tool: string): string {
    if (!TOOL_NAME_PATTERN.test(tool)) {
      throw new RoutingError(`tool name must match ${String(TOOL_NAME_PATTERN)}, got ${JSON.stringify(tool)}`);
    }
    return `${this.prefix}.${INTENTS}.${checkAgent(agent)}.${tool}`;
  }

  approvalRequests(agent: string, token: string): string {
    return `${this.prefix}.${APPROVAL_REQUESTS}.${checkAgent(agent)}.${checkToken(token)}`;
  }

  errors(agent: string, reason: ErrorReason): string {
    if (!isErrorReason(reason)) throw new RoutingError(`unknown error reason ${JSON.stringify(reason)}`);
    return `${this.prefix}.${ERRORS}.${agent === UNNAMED_AGENT ? agent : checkAgent(agent)}.${reason}`;
  }

  memory(op: string): string {
    if (!TOOL_NAME_PATTERN.test(op)) {
      throw new RoutingError(`memory operation must match ${String(TOOL_NAME_PATTERN)}, got ${JSON.stringify(op)}`);
    }
    return `${this.prefix}.${MEMORY}.${op}`;
  }

  admin(op: string): string {
    if (!TOOL_NAME_PATTERN.test(op)) {
      throw new RoutingError(`admin operation must match ${String(TOOL_NAME_PATTERN)}, got ${JSON.stringify(op)}`);
    }
    return `${this.prefix}.${ADMIN}.${op}`;
  }

  journal(agent: string, digest: string): string {
    if (!DIGEST.test(digest)) throw new RoutingError(`journal subjects name a key by its sha256 digest (64 lowercase hex), got ${JSON.stringify(digest.slice(0, 80))}`);
    return `${this.prefix}.${JOURNAL}.${checkAgent(agent)}.${digest}`;
  }

  outputFilter(agent?: string, token?: string): string {
    return `${this.prefix}.${OUTPUT}.${agent === undefined ? '*' : checkAgent(agent)}.${token === undefined ? '*' : checkToken(token)}`;
  }

  errorsFilter(agent?: string, reason?: ErrorReason): string {
    if (reason !== undefined && !isErrorReason(reason)) throw new RoutingError(`unknown error reason ${JSON.stringify(reason)}`);
    return `${this.prefix}.${ERRORS}.${agent === undefined ? '*' : agent === UNNAMED_AGENT ? agent : checkAgent(agent)}.${reason ?? '*'}`;
  }

  stateKey(agent: string, token: string): string {
    return `${checkAgent(agent)}.${checkToken(token)}`;
  }

  parseInboxSubject(subject: string): InboxAddress | undefined {
    const tokens = subject.split('.');
    if (tokens.length !== 6) return undefined;
    const [prefix, lane, partitionText, agent, token, kind] = tokens as [string, string, string, string, string, string];
    if (prefix !== this.prefix || lane !== INBOX) return undefined;
    if (!PARTITION_TOKEN.test(partitionText)) return undefined;
    const partition = Number(partitionText);
    if (partition >= this.partitions) return undefined;
    if (!AGENT_NAME_PATTERN.test(agent) || !isCanonicalKeyToken(token) || !isInboxKind(kind)) return undefined;
    if (partitionOf(token, this.partitions) !== partition) return undefined;
    return { partition, agent, token, kind };
  }

  parseIngestSubject(subject: string): IngestAddress | undefined {
    const tokens = subject.split('.');
    if (tokens.length !== 4) return undefined;
    const [prefix, lane, agent, token] = tokens as [string, string, string, string];
    if (prefix !== this.prefix || !isIngestLane(lane)) return undefined;
    if (agent.length === 0 || token.length === 0) return undefined;
    return { lane, agent, token };
  }

  private checkPartition(partition: number): void {
    if (!Number.isInteger(partition) || partition < 0 || partition >= this.partitions) {
      throw new RoutingError(`partition must be an integer from 0 to ${this.partitions - 1}, got ${String(partition)}`);
    }
  }
}

function stream(name: string, subjects: readonly string[]): StreamSpec {
  return Object.freeze({ name, subjects: Object.freeze([...subjects]) });
}

function checkAgent(agent: string): string {
  if (!AGENT_NAME_PATTERN.test(agent)) {
    throw new RoutingError(`agent name must match ${String(AGENT_NAME_PATTERN)}, got ${JSON.stringify(agent)}`);
  }
  return agent;
}

function checkToken(token: string): string {
  if (!isCanonicalKeyToken(token)) {
    throw new KeyTokenError(`not a canonical key token: ${JSON.stringify(token.slice(0, 64))}`, { token });
  }
  return token;
}
