import { z } from 'zod';
import { decodeApproval, decodeToolResult, ToolResultStatus, type ApprovalDoc, type ToolResultDoc } from '#core';

const utf8 = new TextEncoder();

/** A body that is neither a valid protobuf nor a valid JSON form; the message says why. */
export class AnswerBodyError extends Error {
  override readonly name = 'AnswerBodyError';
}

const statusNames = {
  ok: ToolResultStatus.Ok,
  error: ToolResultStatus.Error,
  expired: ToolResultStatus.Expired,
  rejected: ToolResultStatus.Rejected,
} as const;

/**
 * The documented JSON form of a tool result:
 * `{ "intentId": "…", "status": "ok"|"error"|"expired"|"rejected", "payload"?: <any JSON>,
 *    "errorMessage"?: "…", "completedAtMs"?: 0 }`.
 */
const ToolResultJson = z.strictObject({
  intentId: z.string().min(1),
  status: z.enum(['ok', 'error', 'expired', 'rejected']),
  payload: z.unknown().optional(),
  errorMessage: z.string().optional(),
  completedAtMs: z.number().int().nonnegative().optional(),
  seq: z.number().int().nonnegative().optional(),
});

/** The documented JSON form of an approval: `{ "intentId", "approved", "approver"?, "reason"?, "decidedAtMs"? }`. */
const ApprovalJson = z.strictObject({
  intentId: z.string().min(1),
  approved: z.boolean(),
  approver: z.string().optional(),
  reason: z.string().optional(),
  decidedAtMs: z.number().int().nonnegative().optional(),
});

/** How a body is encoded: from `Content-Type` when given, else sniffed (JSON starts with `{`). */
function isJson(body: Uint8Array, contentType: string | undefined): boolean {
  if (contentType !== undefined) return /json/i.test(contentType);
  for (const byte of body) {
    if (byte === 0x20 || byte === 0x0a || byte === 0x0d || byte === 0x09) continue;
    return byte === 0x7b;
  }
  return false;
}

/** Decodes a tool result in protobuf or its JSON form; throws {@link AnswerBodyError}. */
export function decodeResultBody(body: Uint8Array, entityKey: Uint8Array, contentType: string | undefined): ToolResultDoc {
  if (!isJson(body, contentType)) {
    let result: ToolResultDoc;
    try {
      result = decodeToolResult(body);
    } catch (error) {
      throw new AnswerBodyError((error as Error).message);
    }
    if (result.intentId === '') throw new AnswerBodyError('tool result has no intentId');
    if (result.entityKey.length > 0 && Buffer.compare(Buffer.from(result.entityKey), Buffer.from(entityKey)) !== 0) {
      throw new AnswerBodyError('tool result names another entity key than its subject');
    }
    return { ...result, entityKey };
  }
  const parsed = ToolResultJson.safeParse(parseJson(body));
  if (!parsed.success) throw new AnswerBodyError(`tool result JSON: ${z.prettifyError(parsed.error)}`);
  const r = parsed.data;
  return {
    intentId: r.intentId,
    entityKey,
    seq: r.seq ?? 0,
    status: statusNames[r.status],
    payload: r.payload === undefined ? new Uint8Array(0) : utf8.encode(JSON.stringify(r.payload)),
    errorMessage: r.errorMessage ?? '',
    completedAtMs: r.completedAtMs ?? 0,
  };
}

/** Decodes an approval in protobuf or its JSON form; throws {@link AnswerBodyError}. */
export function decodeApprovalBody(body: Uint8Array, contentType: string | undefined): ApprovalDoc {
  if (!isJson(body, contentType)) {
    let approval: ApprovalDoc;
    try {
      approval = decodeApproval(body);
    } catch (error) {
      throw new AnswerBodyError((error as Error).message);
    }
    if (approval.intentId === '') throw new AnswerBodyError('approval has no intentId');
    return approval;
  }
  const parsed = ApprovalJson.safeParse(parseJson(body));
  if (!parsed.success) throw new AnswerBodyError(`approval JSON: ${z.prettifyError(parsed.error)}`);
  const a = parsed.data;
  return { intentId: a.intentId, approved: a.approved, approver: a.approver ?? '', reason: a.reason ?? '', decidedAtMs: a.decidedAtMs ?? 0 };
}

function parseJson(body: Uint8Array): unknown {
  try {
    return JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(body));
  } catch (error) {
    throw new AnswerBodyError(`body is not JSON: ${(error as Error).message}`);
  }
}
