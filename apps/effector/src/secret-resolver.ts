/**
 * Secrets by reference for tools (`ToolCallContext.secret`): `env:NAME` reads an environment
 * variable of the effector, `file:/path` reads a file (one trailing newline dropped). Resolved at
 * each call, so a rotated file is picked up without a restart. Values are returned to the tool
 * and never logged, cached or put in results; error messages name the reference only.
 */
import { SecretReferenceError } from './effector-errors.js';

/** What resolving reads (injected so the resolver is testable). */
export interface SecretSources {
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly readFile: (path: string) => string;
}

/** A secret resolver over `sources`; throws {@link SecretReferenceError} for a reference that does not resolve. */
export function createSecretResolver(sources: SecretSources): (reference: string) => string {
  return (reference) => {
    if (reference.startsWith('env:')) {
      const name = reference.slice('env:'.length);
      const value = name.length === 0 ? undefined : sources.env[name];
      if (value === undefined) throw new SecretReferenceError(`secret ${reference} does not resolve: the variable is not set`);
      return value;
    }
    if (reference.startsWith('file:')) {
      const path = reference.slice('file:'.length);
      if (path.length === 0) throw new SecretReferenceError('secret file: names no path');
      try {
        return sources.readFile(path).replace(/\r?\n$/, '');
      } catch (error) {
        throw new SecretReferenceError(`secret ${reference} does not resolve: ${(error as NodeJS.ErrnoException).code ?? 'unreadable'}`, { cause: error });
      }
    }
    // Not echoed: a value passed where a reference belongs would otherwise reach the logs.
    throw new SecretReferenceError('secret references are env:NAME or file:/path; the one given has neither scheme');
  };
}
