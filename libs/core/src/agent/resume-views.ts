/** The status of a tool result, as an agent reads it. */
export type ToolResultStatusName = 'ok' | 'error' | 'expired' | 'rejected';

/**
 * The tool result a resumed activation was resumed by. `expired` means the effector refused the
 * intent (or the deadline passed under the `deny` policy): the agent can degrade gracefully.
 */
export interface ToolResultView {
  readonly intentId: string;
  readonly status: ToolResultStatusName;
  /** The tool's return value as canonical JSON bytes (empty unless `ok`). */
  readonly payload: Uint8Array;
  /** The payload parsed as JSON (`undefined` when empty). */
  json<T = unknown>(): T | undefined;
  readonly errorMessage: string;
  readonly completedAtMs: number;
}

/** The human decision a resumed activation was resumed by. A denial is an answer, not an error. */
export interface ApprovalView {
  readonly intentId: string;
  readonly approved: boolean;
  readonly approver: string;
  readonly reason: string;
  readonly decidedAtMs: number;
}

/**
 * A tool result typed by its tool's output schema (`ctx.toolResult(tool)`): the value when the
 * tool succeeded, else the status and error message.
 */
export type TypedToolResult<R> =
  | { readonly status: 'ok'; readonly intentId: string; readonly value: R }
  | { readonly status: 'error' | 'expired' | 'rejected'; readonly intentId: string; readonly errorMessage: string };
