// Layer 1: a user's agent throws errors from its own copy of @nats-agents/sdk; the runtime's
// `instanceof` must still see a RetryableError or TerminalError for what it is.
import { describe, expect, it } from 'vitest';
import { RetryableError, TerminalError } from './runtime-error.js';
import type * as RuntimeErrors from './runtime-error.js';

/** A second copy of the classes, as a user's node_modules would hold it. */
async function otherCopy(): Promise<typeof RuntimeErrors> {
  const specifier = './runtime-error.js?copy=user';
  return (await import(/* @vite-ignore */ specifier)) as typeof RuntimeErrors;
}

describe('runtime error brands', () => {
  it("recognises another copy's RetryableError and TerminalError, and their subclasses", async () => {
    const copy = await otherCopy();
    expect(copy.RetryableError).not.toBe(RetryableError);
    class Flaky extends copy.RetryableError {}
    expect(new copy.RetryableError('x')).toBeInstanceOf(RetryableError);
    expect(new Flaky('x')).toBeInstanceOf(RetryableError);
    expect(new copy.TerminalError('x')).toBeInstanceOf(TerminalError);
    expect(new copy.TerminalError('x')).not.toBeInstanceOf(RetryableError);
    expect(new Error('x')).not.toBeInstanceOf(RetryableError);
  });

  it('keeps subclass checks exact', () => {
    class A extends RetryableError {}
    class B extends RetryableError {}
    expect(new A('a')).toBeInstanceOf(A);
    expect(new A('a')).not.toBeInstanceOf(B);
    expect(new A('a')).toBeInstanceOf(RetryableError);
  });
});
