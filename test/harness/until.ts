/**
 * Polls `probe` every `pollMs` until it holds, or fails naming `what` after `timeoutMs`: a test
 * waits for a condition, never with a bare sleep. A probe that throws fails the wait at once.
 */
export async function until(probe: () => Promise<boolean> | boolean, timeoutMs: number, what: string, pollMs = 50): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await probe())) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, pollMs));
  }
}
