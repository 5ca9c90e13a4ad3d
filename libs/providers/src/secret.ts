/**
 * A credential that cannot be logged by accident. The raw value lives in a private field and
 * every implicit rendering (string coercion, JSON, `util.inspect`, template literals) prints
 * `[redacted]`; only an explicit `reveal()` returns it. Importing this file has no side effects.
 */

const REDACTED = '[redacted]';

/**
 * Wraps a secret string (an API key). Rendering it in any implicit way yields `[redacted]`:
 * `String(secret)`, `` `${secret}` ``, `JSON.stringify({ secret })` and `util.inspect(secret)`
 * NEVER show the value, so a config object holding a `Secret` is safe to log.
 *
 * @example
 * ```ts
 * const key = new Secret('sk-…');
 * console.log({ key });                                       // { key: [redacted] }
 * headers.authorization = `Bearer ${key.reveal()}`;          // the one explicit use
 * ```
 */
export class Secret {
  readonly #value: string;

  constructor(value: string) {
    this.#value = value;
  }

  /** The raw value. Call it only where the credential is sent (an HTTP header), never to log. */
  reveal(): string {
    return this.#value;
  }

  /** Always `[redacted]`. */
  toString(): string {
    return REDACTED;
  }

  /** Always `[redacted]`, so `JSON.stringify` of a containing object never leaks the value. */
  toJSON(): string {
    return REDACTED;
  }

  /** Always `[redacted]` for `util.inspect` and `console.log`. */
  [Symbol.for('nodejs.util.inspect.custom')](): string {
    return REDACTED;
  }
}
