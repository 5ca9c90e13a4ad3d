/**
 * A tiny scripted {@link ModelProvider} for core specs (libs/core must not import the real fake
 * from `#providers`, which depends on core). It answers through a script function, counts and
 * records every call, and reads no clock and no randomness.
 */
import type { ModelProvider, ModelRequest, ProviderCallOptions } from '../model/model-request.js';

/** How one call is answered: `call` is the 0-based index of this call. */
export type ModelScript = (request: ModelRequest, call: number, options: ProviderCallOptions) => Promise<Uint8Array> | Uint8Array;

const utf8 = new TextEncoder();

/** A provider answering through a script; `calls` counts every `complete`. */
export class ScriptedModelProvider implements ModelProvider {
  readonly name = 'scripted';
  /** Every request received, in call order. */
  readonly requests: ModelRequest[] = [];
  /** The body each call answered, by call index (absent while a call is pending or when it threw). */
  readonly answers: (Uint8Array | undefined)[] = [];

  constructor(private readonly script: ModelScript) {}

  /** Answers every request with `text` as UTF-8. */
  static replying(text: string): ScriptedModelProvider {
    return new ScriptedModelProvider(() => utf8.encode(text));
  }

  /** Answers nothing until the call's signal aborts, then rejects with the abort reason. */
  static hanging(): ScriptedModelProvider {
    return new ScriptedModelProvider(
      (_request, _call, { signal }) =>
        new Promise<Uint8Array>((_resolve, reject) => {
          signal.addEventListener('abort', () => reject(signal.reason), { once: true });
        }),
    );
  }

  /** How many times `complete` was called. */
  get calls(): number {
    return this.requests.length;
  }

  async complete(request: ModelRequest, options: ProviderCallOptions): Promise<Uint8Array> {
    const call = this.requests.length;
    this.requests.push(request);
    this.answers.push(undefined);
    const body = await this.script(request, call, options);
    this.answers[call] = body;
    return body;
  }
}

/** A promise with its settlers exposed, to script when a fake answers. */
export interface Deferred<T> {
  readonly promise: Promise<T>;
  resolve(value: T): void;
  reject(reason: unknown): void;
}

/** A fresh {@link Deferred}. */
export function deferred<T>(): Deferred<T> {
  let resolve!: (value: T) => void;
  let reject!: (reason: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}
