/**
 * The reason an activation's signal is aborted with when it outruns its timeout. Not thrown to
 * callers: the runner turns it into a `timed_out` result (`activation_timeout`, zero mutation).
 */
export class ActivationTimeout extends Error {
  override readonly name = 'ActivationTimeout';
  readonly timeoutMs: number;
  constructor(timeoutMs: number) {
    super(`activation exceeded ${timeoutMs} ms`);
    this.timeoutMs = timeoutMs;
  }
}
