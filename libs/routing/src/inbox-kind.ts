/**
 * The closed vocabulary of inbox kinds: the last token of `<prefix>.inbox.<p>.<agent>.<key>.<kind>`.
 * Everything that can change a key's state enters the key's inbox lane as one of these, so the
 * activator routes on it (ARCHITECTURE.md §5 step 2). The strings are a wire contract.
 */
export const InboxKind = {
  /** A user event forwarded by ingress; starts a new activation. */
  Event: 'event',
  /** A tool result forwarded by ingress (published by the effector); resumes a suspended activation. */
  Result: 'result',
  /** A human approval decision forwarded by ingress; resumes a suspended activation. */
  Approval: 'approval',
  /** A due timer fired by the partition owner (deadline, idle TTL, batching flush); runs its handler. */
  Timer: 'timer',
} as const;

/** One inbox kind. */
export type InboxKind = (typeof InboxKind)[keyof typeof InboxKind];

const kinds: ReadonlySet<string> = new Set(Object.values(InboxKind));

/** True when `value` is a member of the inbox-kind vocabulary. */
export function isInboxKind(value: string): value is InboxKind {
  return kinds.has(value);
}
