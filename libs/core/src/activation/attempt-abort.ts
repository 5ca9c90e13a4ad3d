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
 * Why it matters: on Node 20 creating a signal costs about 4 µs and gives it three maps of its
 * own (decision 0093), so a caller that only needs to be told of the abort ({@link onAbort}) or
 * to ask ({@link abandoned}, {@link reason}) never pays for one.
 *
 * One per attempt, in memory: a retry, a redelivery or a replay runs a new attempt with a new one.
 * The effector holds one per tool invocation the same way (its attempts share the one deadline).
 */
export class AttemptAbort {
  private readonly controller = new AbortController();
  private abortedWith: Error | undefined;
  private listeners: ((reason: Error) => void)[] | undefined;

  /** The attempt's signal (created on first access; already aborted if the attempt was). */
  get signal(): AbortSignal {
    return this.controller.signal;
  }

  /** True once {@link abort} was called; never creates the signal. */
  get abandoned(): boolean {
    return this.abortedWith !== undefined;
  }

  /** What {@link abort} was first called with; undefined while the attempt runs. Never creates the signal. */
  get reason(): Error | undefined {
    return this.abortedWith;
  }

  /**
   * Calls `listener` with the reason when the attempt is abandoned: once, at once if it already
   * was. Returns the function that removes it (call it when the work settles). Never creates the
   * signal; listeners run before the signal (if any) aborts, in the order they were added, inside
   * whatever called {@link abort} (a timer, a halt): a listener must not throw (settling a
   * promise, as the effector's does, never does).
   */
  onAbort(listener: (reason: Error) => void): () => void {
    if (this.abortedWith !== undefined) {
      listener(this.abortedWith);
      return () => undefined;
    }
    (this.listeners ??= []).push(listener);
    return () => {
      const at = this.listeners?.indexOf(listener) ?? -1;
      if (at >= 0) this.listeners?.splice(at, 1);
    };
  }

  /** Abandons the attempt with `reason` (the first call wins; later ones change nothing). */
  abort(reason: Error): void {
    if (this.abortedWith !== undefined) return;
    this.abortedWith = reason;
    const listeners = this.listeners;
    this.listeners = undefined;
    if (listeners !== undefined) for (const listener of listeners) listener(reason);
    this.controller.abort(reason);
  }
}
