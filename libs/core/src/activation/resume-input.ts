import type { ApprovalView, ToolResultView } from '../agent/resume-views.js';

/** What a resumed attempt is resumed with (absent for a start). */
export interface ResumeInput {
  readonly result?: ToolResultView;
  readonly approval?: ApprovalView;
  /** The deadline passed under the `deny` policy. */
  readonly timedOut: boolean;
  readonly snapshot: Uint8Array;
}
