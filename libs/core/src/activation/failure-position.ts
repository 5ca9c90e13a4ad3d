/**
 * Where an activation stood when it failed, for the error detail and trace attributes:
 * the step cursor and the kind of the last thing it staged.
 */
export const StagedEvent = {
  /** Nothing staged yet. */
  ActivationStart: 'activation_start',
  /** A model call (cache hit or provider call). */
  LlmCall: 'llm_call',
  /** A tool intent. */
  IntentEmitted: 'intent_emitted',
  /** An approval intent. */
  ApprovalRequested: 'approval_requested',
} as const;
export type StagedEvent = (typeof StagedEvent)[keyof typeof StagedEvent];

export interface FailurePosition {
  readonly step: number;
  readonly after: StagedEvent;
}

/** The deterministic detail of an `activation_error` record: the error and its position. */
export function failureDetail(error: Error, position: FailurePosition): string {
  return `${error.name}: ${error.message} failed_at_step=${position.step} after=${position.after}`;
}
