// Layer 1: AGENTS_TRACE_STEPS picks how an activation's steps are recorded; a value it does not know refuses the start.
import { describe, expect, it } from 'vitest';
import { traceStepsFromEnv, TraceStepsModeError } from './trace-steps.js';

describe('traceStepsFromEnv', () => {
  it('records steps as events of the activation span unless spans are asked for', () => {
    expect(traceStepsFromEnv({})).toBe('events');
    expect(traceStepsFromEnv({ AGENTS_TRACE_STEPS: ' ' })).toBe('events');
    expect(traceStepsFromEnv({ AGENTS_TRACE_STEPS: 'events' })).toBe('events');
    expect(traceStepsFromEnv({ AGENTS_TRACE_STEPS: ' Spans ' })).toBe('spans');
  });

  it('refuses an unknown value with a named error that says what is accepted', () => {
    expect(() => traceStepsFromEnv({ AGENTS_TRACE_STEPS: 'span' })).toThrow(TraceStepsModeError);
    expect(() => traceStepsFromEnv({ AGENTS_TRACE_STEPS: 'span' })).toThrow("AGENTS_TRACE_STEPS must be 'events' or 'spans', got 'span'");
  });
});
