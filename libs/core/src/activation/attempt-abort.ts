/**
 * How one attempt is abandoned: the runner aborts it on timeout, and the attempt's context asks
 * whether it was before staging or calling anything more.
 *
 * Why not an `AbortController` alone: the only way to ask a controller is through its signal,
 * and Node creates that signal (an EventTarget with its listener map) on first access. Every
 * attempt checks before it stages an output, a model call or an intent, and most never need the
 * signal itself (a no-op agent's `emit`): {@link abandoned} answers without creating it. The
 * signal is still the controller's, created when a model call, a tool or the agent reads it, and
 * aborted with the same reason, whenever it is created.
 *
 * One per attempt, in memory: a retry, a redelivery or a replay runs a new attempt with a new one.
 */
export class AttemptAbort {
  private readonly controller = new AbortController();
  private reason: Error | undefined;

  /** The attempt's signal (created on first access; already aborted if the attempt was). */
  get signal(): AbortSignal {
    return this.controller.signal;
  }

  /** True once {@link abort} was called; never creates the signal. */
  get abandoned(): boolean {
    return this.reason !== undefined;
  }

  /** Abandons the attempt with `reason` (the first call wins; later ones change nothing). */
  abort(reason: Error): void {
    if (this.reason !== undefined) return;
    this.reason = reason;
    this.controller.abort(reason);
  }
}
