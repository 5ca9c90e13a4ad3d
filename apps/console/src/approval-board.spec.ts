import { describe, expect, it } from 'vitest';
import { approvalBoard, type ApprovalRequestView } from './approval-board.js';
import { groupErrors, type ErrorRecordView } from './error-groups.js';
import { traceLink } from './trace-link.js';

const request = (intentId: string, requestedAtMs: number, deadlineMs: number): ApprovalRequestView => ({
  intentId,
  agent: 'refund',
  key: 'order-8',
  keyToken: 'order-8',
  tool: 'refund',
  argsJson: '{"amount":400}',
  requestedAtMs,
  deadlineMs,
});

describe('the approvals board', () => {
  it('shows the first decision in inbox order as the decision and later ones as ignored', () => {
    const [row] = approvalBoard(
      [request('i1', 1, 1_000)],
      [
        { intentId: 'i1', approved: true, approver: 'ada', reason: '', decidedAtMs: 5 },
        { intentId: 'i1', approved: false, approver: 'bob', reason: '', decidedAtMs: 4 },
      ],
      10,
    );
    expect(row?.status).toBe('approved');
    expect(row?.status === 'approved' ? [row.decision.approver, row.ignored.map((d) => d.approver)] : []).toEqual(['ada', ['bob']]);
  });

  it('lists undecided requests as pending until their deadline, then expired, pending first', () => {
    const rows = approvalBoard([request('old', 1, 50), request('new', 2, 5_000), request('new', 2, 5_000)], [], 100);
    expect(rows.map((r) => [r.intentId, r.status])).toEqual([
      ['new', 'pending'],
      ['old', 'expired'],
    ]);
  });
});

describe('error groups', () => {
  const record = (seq: number, agent: string, reason: string, redrivable: boolean): ErrorRecordView => ({ seq, agent, reason, detail: '', key: 'k', keyToken: 'k', eventTimeMs: 0, storedAtMs: seq, redrivable });

  it('groups by agent and reason, newest group and newest record first, counting the redrivable ones', () => {
    const groups = groupErrors([record(1, 'a', 'x', true), record(3, 'a', 'x', false), record(2, 'b', 'y', true)]);
    expect(groups.map((g) => [g.agent, g.reason, g.count, g.redrivable, g.records.map((r) => r.seq)])).toEqual([
      ['a', 'x', 2, 1, [3, 1]],
      ['b', 'y', 1, 1, [2]],
    ]);
  });
});

describe('the trace link', () => {
  it('fills the template with encoded fields, and there is no link without a template', () => {
    expect(traceLink('http://j/search?tags={keyDigest}&a={agent}&t={traceId}', { keyDigest: 'ab', agent: 'r f', traceId: '' })).toBe('http://j/search?tags=ab&a=r%20f&t=');
    expect(traceLink('', { keyDigest: 'ab', agent: 'r', traceId: '' })).toBeUndefined();
  });
});
