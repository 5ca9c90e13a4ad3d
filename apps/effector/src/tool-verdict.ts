import { ToolResultStatus } from '#core';

/** The terminal answer to an intent, before it is recorded and published. */
export interface ToolVerdict {
  readonly status: ToolResultStatus;
  /** OK: the canonical JSON of the tool's return value (UTF-8); empty otherwise. */
  readonly payload: Uint8Array;
  /** ERROR, REJECTED, EXPIRED: `<ErrorName>: <message>`; empty for OK. */
  readonly errorMessage: string;
}

const EMPTY = new Uint8Array(0);

/** A verdict without a payload (ERROR, REJECTED, EXPIRED), its message formatted `<name>: <message>`. */
export function failedVerdict(status: ToolResultStatus, error: { readonly name: string; readonly message: string }): ToolVerdict {
  return { status, payload: EMPTY, errorMessage: `${error.name}: ${error.message}` };
}

/** Lower-case status names (metric labels, logs). */
export function statusName(status: ToolResultStatus): 'ok' | 'error' | 'expired' | 'rejected' {
  switch (status) {
    case ToolResultStatus.Ok:
      return 'ok';
    case ToolResultStatus.Error:
      return 'error';
    case ToolResultStatus.Expired:
      return 'expired';
    case ToolResultStatus.Rejected:
      return 'rejected';
  }
}
