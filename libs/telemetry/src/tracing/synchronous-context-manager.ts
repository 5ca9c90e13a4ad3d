import { EventEmitter } from 'node:events';
import { ROOT_CONTEXT, type Context, type ContextManager } from '@opentelemetry/api';

/** The listener methods of an emitter whose listeners {@link SynchronousContextManager.bind} wraps. */
const ADD_METHODS = ['addListener', 'on', 'once', 'prependListener', 'prependOnceListener'] as const;

/**
 * An OpenTelemetry context manager without AsyncLocalStorage: `with(ctx, fn)` makes `ctx` the
 * active context for the synchronous extent of `fn` only, restoring the previous one when `fn`
 * returns or throws. Nothing follows an `await`, a timer or a callback unless it was bound.
 *
 * Why: on Node 20 the first `AsyncLocalStorage.run` (which OpenTelemetry's
 * AsyncLocalStorageContextManager does per `with`) enables async_hooks promise hooks for the whole
 * process, for good — every promise of every element then pays for context propagation, sampled
 * or not (decision 0076). The runtime passes parents explicitly instead (span contexts through
 * {@link TraceScopes} and message headers), so it needs an active context only for synchronous
 * calls: the SDK's own `suppressTracing` around an export, the mixin of a log line written inside
 * a scope.
 *
 * Holds no state but the current context: a crash, a redelivery or a replay starts from the root
 * context like any fresh process. `bind` wraps a function (or an emitter's listeners) so it runs
 * with the given context when it is called later.
 */
export class SynchronousContextManager implements ContextManager {
  private current: Context = ROOT_CONTEXT;

  active(): Context {
    return this.current;
  }

  with<A extends unknown[], F extends (...args: A) => ReturnType<F>>(ctx: Context, fn: F, thisArg?: ThisParameterType<F>, ...args: A): ReturnType<F> {
    const previous = this.current;
    this.current = ctx;
    try {
      return fn.call(thisArg, ...args);
    } finally {
      this.current = previous;
    }
  }

  bind<T>(ctx: Context, target: T): T {
    if (target instanceof EventEmitter) return this.bindEmitter(ctx, target) as T;
    if (typeof target !== 'function') return target;
    const fn = target as unknown as (...args: unknown[]) => unknown;
    // eslint-disable-next-line @typescript-eslint/no-this-alias -- the bound function keeps its own `this`
    const manager = this;
    return function (this: unknown, ...args: unknown[]) {
      return manager.with(ctx, () => fn.apply(this, args));
    } as unknown as T;
  }

  enable(): this {
    return this;
  }

  disable(): this {
    this.current = ROOT_CONTEXT;
    return this;
  }

  /** Listeners added to `emitter` from now on run with `ctx` (OpenTelemetry's contract for emitters). */
  private bindEmitter(ctx: Context, emitter: EventEmitter): EventEmitter {
    for (const method of ADD_METHODS) {
      const original = emitter[method].bind(emitter);
      emitter[method] = (event: string | symbol, listener: (...args: unknown[]) => void) => original(event, this.bind(ctx, listener));
    }
    return emitter;
  }
}
