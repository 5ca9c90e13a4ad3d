// The failure detail is part of a byte-identical error record (A08, A09), so its exact shape is pinned where it is built.
import { describe, expect, it } from 'vitest';
import { TerminalError } from '../errors/runtime-error.js';
import { failureDetail, StagedEvent } from './failure-position.js';

describe('failureDetail', () => {
  it('names the error, its message, the step cursor and the last staged kind', () => {
    expect(failureDetail(new RangeError('bad amount'), { step: 1, after: StagedEvent.LlmCall })).toBe('RangeError: bad amount failed_at_step=1 after=llm_call');
  });

  it('names the activation start when nothing was staged', () => {
    expect(failureDetail(new Error('boom'), { step: 0, after: StagedEvent.ActivationStart })).toBe('Error: boom failed_at_step=0 after=activation_start');
  });

  it('uses the subclass name of runtime errors', () => {
    class LedgerClosed extends TerminalError {
      override readonly name = 'LedgerClosed';
    }
    expect(failureDetail(new LedgerClosed('closed'), { step: 2, after: StagedEvent.IntentEmitted })).toBe('LedgerClosed: closed failed_at_step=2 after=intent_emitted');
  });
});
