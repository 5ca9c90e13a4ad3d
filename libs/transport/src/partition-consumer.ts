import { AckPolicy, DeliverPolicy, ReplayPolicy, type ConsumerConfig, type ConsumerInfo, type JetStreamManager } from '@nats-io/jetstream';
import { nanos } from '@nats-io/transport-node';

/** Options of a partition consumer. */
export interface PartitionConsumerOptions {
  readonly stream: string;
  /** The partition's subject filter, e.g. `agents.inbox.7.>`; absent consumes the whole stream. */
  readonly filterSubject?: string;
  /** Name prefix shared by every epoch of this partition's consumer, e.g. `activator-p007`. */
  readonly namePrefix: string;
  /** The owner epoch (lease revision); part of the consumer name. */
  readonly epoch: number;
  readonly ackWaitMs: number;
  readonly maxAckPending: number;
}

/** The consumer an owner pulls from, and where it starts. */
export interface AcquiredConsumer {
  readonly name: string;
  /** The stream sequence delivery starts at. */
  readonly startSeq: number;
  /** Predecessor consumers that were deleted. */
  readonly replaced: readonly string[];
}

/**
 * Gives the owner of a partition its own consumer, starting just after the predecessor's ack
 * floor (or where the predecessor started, if it acknowledged nothing), then deletes the
 * predecessors (nats-design §7.3). Delivery restarts in stream order from
 * the oldest unacknowledged message, so a redelivered element can never arrive behind a later one
 * of the same key (which the `lastAppliedSeq` check would then drop). Messages above the floor
 * that were already acknowledged come back and are recognised as duplicates. A stale owner's
 * pulls target the deleted consumer, so it cannot take messages from its successor.
 *
 * Idempotent for one epoch: if the consumer of this epoch already exists it is kept as is.
 */
export async function acquirePartitionConsumer(jsm: JetStreamManager, options: PartitionConsumerOptions): Promise<AcquiredConsumer> {
  const name = `${options.namePrefix}-e${options.epoch}`;
  const mine: ConsumerInfo[] = [];
  for await (const info of jsm.consumers.list(options.stream) as AsyncIterable<ConsumerInfo | null>) {
    // nats-server 2.9 lists a consumer that is being created or deleted meanwhile as `null`. It
    // may be a predecessor (its floor and its deletion matter), so fail this acquisition (the lease
    // is released and retaken on a later tick) rather than reset from an incomplete listing.
    if (info === null) throw new Error(`the consumer list of ${options.stream} changed while it was read`);
    if (info.name.startsWith(`${options.namePrefix}-e`)) mine.push(info);
  }
  const current = mine.find((c) => c.name === name);
  const predecessors = mine.filter((c) => c.name !== name).sort((a, b) => epochOf(a.name) - epochOf(b.name));

  let startSeq: number;
  if (current !== undefined) {
    startSeq = current.config.opt_start_seq ?? 1;
  } else {
    // The newest predecessor's floor; older ones (left by a crash mid-takeover) lag behind it.
    const latest = predecessors[predecessors.length - 1];
    startSeq = latest === undefined ? 1 : resumeAfter(latest);
    const config: Partial<ConsumerConfig> = {
      durable_name: name,
      ack_policy: AckPolicy.Explicit,
      ack_wait: nanos(options.ackWaitMs),
      max_ack_pending: options.maxAckPending,
      max_deliver: -1,
      ...(options.filterSubject !== undefined ? { filter_subject: options.filterSubject } : {}),
      replay_policy: ReplayPolicy.Instant,
      ...(latest === undefined ? { deliver_policy: DeliverPolicy.All } : { deliver_policy: DeliverPolicy.StartSequence, opt_start_seq: startSeq }),
    };
    const created = await jsm.consumers.add(options.stream, config);
    if (options.filterSubject !== undefined && created.config.filter_subject !== options.filterSubject) {
      throw new Error(`consumer ${name} was created without its filter (server returned ${String(created.config.filter_subject)})`);
    }
  }
  for (const predecessor of predecessors) {
    await jsm.consumers.delete(options.stream, predecessor.name).catch(() => false);
  }
  return { name, startSeq, replaced: predecessors.map((p) => p.name) };
}

/**
 * Where a successor resumes after `predecessor`: just above its ack floor, and never below where the
 * predecessor itself started. nats-server 2.9 reports an ack floor of stream sequence 0 for a
 * consumer created at a start sequence that has acknowledged nothing yet (an owner that held the
 * partition while no element arrived, or crashed before its first ack). Taking that 0 as the floor
 * restarted delivery at sequence 1 and replayed the partition's whole history as duplicates: with
 * 2.5 million messages in the inbox, a second activator joining was handed about 156,000 old
 * messages per partition and the cluster stalled for 39 s (decision 0090). Nothing
 * is skipped by the bound: everything below the predecessor's own start was at or below the floor
 * of the owner before it, acknowledged, and everything the predecessor was delivered and did not
 * acknowledge lies at or above its start, so it comes back.
 */
function resumeAfter(predecessor: ConsumerInfo): number {
  return Math.max(predecessor.ack_floor.stream_seq + 1, predecessor.config.opt_start_seq ?? 1);
}

function epochOf(name: string): number {
  const match = /-e(\d+)$/.exec(name);
  return match ? Number(match[1]) : 0;
}
