/**
 * One difference between a replay and the recording it replays. `element` is the 1-based position
 * of the recorded inbox element whose replay produced (or should have produced) it; end-state
 * differences (memory, continuation, state) are reported at the last replayed element.
 */
export interface ReplayDivergence {
  readonly element: number;
  /** That element's inbox stream sequence. */
  readonly inboxSeq: number;
  readonly what: DivergenceSubject;
  /** Which one: a message id, a memory key, or a field name. */
  readonly id: string;
  readonly problem: DivergenceProblem;
  /** The recorded side, printable (text, or `<n bytes sha256:…>`). */
  readonly recorded?: string;
  /** The replayed side, printable. */
  readonly replayed?: string;
}

/** What diverged. */
export const DivergenceSubject = {
  /** An output's bytes. */
  Output: 'output',
  /** A tool intent (its fields other than the signature). */
  Intent: 'intent',
  /** An approval request. */
  ApprovalRequest: 'approval-request',
  /** An error record. */
  ErrorRecord: 'error-record',
  /** A working-memory entry of the final state. */
  Memory: 'memory',
  /** The final state's continuation (suspended or not, where, waiting for what). */
  Continuation: 'continuation',
  /** Another field of the final state: `seq`, `lastAppliedSeq`, `pending`, `deferred`. */
  State: 'state',
} as const;
export type DivergenceSubject = (typeof DivergenceSubject)[keyof typeof DivergenceSubject];

/** How it diverged. */
export const DivergenceProblem = {
  /** Recorded, but the replay did not produce it. */
  Missing: 'missing',
  /** Produced by the replay, but not recorded. */
  Unexpected: 'unexpected',
  /** Both sides have it, with different content. */
  Different: 'different',
} as const;
export type DivergenceProblem = (typeof DivergenceProblem)[keyof typeof DivergenceProblem];
