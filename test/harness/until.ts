/**
 * Polls `probe` every `pollMs` until it holds, or fails naming `what` after `timeoutMs`: a test
 * waits for a condition, never with a bare sleep. A probe that throws fails the wait at once.
 * `what` may be a function, read only on timeout, to name progress made so far.
 */
export async function until(probe: () => Promise<boolean> | boolean, timeoutMs: number, what: string | (() => string), pollMs = 50): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await probe())) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${typeof what === 'string' ? what : what()}`);
    await new Promise((resolve) => setTimeout(resolve, pollMs));
  }
}
