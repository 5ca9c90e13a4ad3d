/**
 * Recognises secret material where only references belong: an environment variable whose name
 * says it holds a secret but which carries a literal value, and URIs with a password in them.
 */

/** Names of variables that hold secrets by convention. */
const SECRET_NAME = /(SECRET|PASSW(OR)?D|TOKEN|API_?KEY|CREDENTIAL|PRIVATE_?KEY|SEED|KEYRING|_URI$|_DSN$)/i;

/** Where the chart mounts Secrets as files: a path under it is a reference, not the secret itself. */
const MOUNTED_SECRET_PATH = /^\/var\/run\/secrets\/nats-agents\/[a-z0-9-]+\/[^/\s]+$/;

/** `scheme://user:password@host`: credentials inside a URI. */
const URI_PASSWORD = /[a-z][a-z0-9+.-]*:\/\/[^/\s:@]*:[^/\s@]+@/i;

/** Why a literal `value` of variable `name` looks like a secret, or undefined when it does not. */
export function literalSecretReason(name: string, value: string): string | undefined {
  if (SECRET_NAME.test(name) && value.length > 0 && !MOUNTED_SECRET_PATH.test(value)) return `${name} carries a literal value but its name says it is a secret`;
  if (URI_PASSWORD.test(value)) return `${name} carries a URI with a password`;
  return undefined;
}

/** Whether `text` contains a URI with a password. */
export function containsUriPassword(text: string): boolean {
  return URI_PASSWORD.test(text);
}
