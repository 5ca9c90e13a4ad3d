/**
 * Sources a provider API key from the environment or a mounted file, once, at construction
 * time. The key comes back wrapped in a {@link Secret}; errors name where we looked, never what
 * we found. The function takes the environment as an argument (the service passes
 * `process.env`), so it never reads global state itself.
 */
import { readFileSync } from 'node:fs';
import { ApiKeyError } from './errors.js';
import { Secret } from './secret.js';

/** An environment map, e.g. `process.env`. */
export type EnvMap = { readonly [name: string]: string | undefined };

/** Where a provider's API key comes from: at most one of an env var name or a file path. */
export interface ApiKeySource {
  /** Name of the environment variable holding the key (e.g. `OPENAI_API_KEY`). */
  readonly apiKeyEnv?: string;
  /** Path of a file holding the key (e.g. a mounted Kubernetes secret); surrounding whitespace is trimmed. */
  readonly apiKeyFile?: string;
}

/**
 * Loads the API key described by `source`.
 *
 * - Neither field set → `undefined` (the endpoint needs no key; no `Authorization` header is sent).
 * - `apiKeyEnv` → the variable's value, trimmed.
 * - `apiKeyFile` → the file's UTF-8 contents, trimmed.
 *
 * @throws {@link ApiKeyError} when both fields are set, when the variable is unset or blank,
 *   or when the file cannot be read or is blank. The message names the variable or file and
 *   NEVER contains the key.
 *
 * @example
 * ```ts
 * const apiKey = loadApiKey({ apiKeyEnv: 'OPENAI_API_KEY' }, process.env);
 * ```
 */
export function loadApiKey(source: ApiKeySource, env: EnvMap): Secret | undefined {
  const { apiKeyEnv, apiKeyFile } = source;
  if (apiKeyEnv !== undefined && apiKeyFile !== undefined) {
    throw new ApiKeyError(
      `configure the API key by apiKeyEnv (${apiKeyEnv}) or by apiKeyFile (${apiKeyFile}), not both`,
      { envVar: apiKeyEnv, file: apiKeyFile },
    );
  }
  if (apiKeyEnv !== undefined) return fromEnv(apiKeyEnv, env);
  if (apiKeyFile !== undefined) return fromFile(apiKeyFile);
  return undefined;
}

function fromEnv(envVar: string, env: EnvMap): Secret {
  const value = env[envVar]?.trim();
  if (value === undefined) throw new ApiKeyError(`API key environment variable ${envVar} is not set`, { envVar });
  if (value === '') throw new ApiKeyError(`API key environment variable ${envVar} is empty`, { envVar });
  return new Secret(value);
}

function fromFile(file: string): Secret {
  let contents: string;
  try {
    contents = readFileSync(file, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException | undefined)?.code ?? 'unknown error';
    throw new ApiKeyError(`API key file ${file} cannot be read (${code})`, { file }, { cause: error });
  }
  const value = contents.trim();
  if (value === '') throw new ApiKeyError(`API key file ${file} is empty`, { file });
  return new Secret(value);
}
