/**
 * The page's side of the console API: the credential the user typed (kept in this tab's
 * sessionStorage only, sent as a bearer token on each request, never written anywhere else), JSON
 * requests, and the live-update stream read with fetch (EventSource cannot send the header).
 */

const STORAGE_KEY = 'nats-agents-console-credential';

/** The signed-in user as the API reports it. */
export interface Me {
  readonly id: string;
  readonly roles: readonly string[];
  readonly via: string;
}

/** A refusal or failure the page shows. */
export class ApiError extends Error {
  override name = 'ApiError';
  constructor(
    readonly status: number,
    message: string,
    readonly body: unknown,
  ) {
    super(message);
  }
}

export function storedCredential(): string | null {
  return sessionStorage.getItem(STORAGE_KEY);
}

export function storeCredential(credential: string | null): void {
  if (credential === null) sessionStorage.removeItem(STORAGE_KEY);
  else sessionStorage.setItem(STORAGE_KEY, credential);
}

function headers(credential: string | null): Record<string, string> {
  return credential === null ? {} : { Authorization: `Bearer ${credential}` };
}

/** GET or POST `path` (under /api) with the stored credential. */
export async function api<T>(path: string, body?: unknown, credential: string | null = storedCredential()): Promise<T> {
  const response = await fetch(`api/${path}`, {
    method: body === undefined ? 'GET' : 'POST',
    headers: { ...headers(credential), ...(body === undefined ? {} : { 'Content-Type': 'application/json' }), Accept: 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await response.text();
  const parsed: unknown = text.length > 0 ? JSON.parse(text) : undefined;
  if (!response.ok) {
    const message = (parsed as { message?: unknown; title?: unknown } | undefined)?.title ?? (parsed as { message?: unknown } | undefined)?.message;
    throw new ApiError(response.status, typeof message === 'string' ? message : `HTTP ${response.status}`, parsed);
  }
  return parsed as T;
}

/** Calls `onTopic` for each live-update event until `signal` aborts; reconnects after a drop. */
export async function followLive(onTopic: (topic: string) => void, signal: AbortSignal): Promise<void> {
  while (!signal.aborted) {
    try {
      const response = await fetch('api/live', { headers: headers(storedCredential()), signal });
      if (!response.ok || response.body === null) throw new Error(`HTTP ${response.status}`);
      const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
      let buffer = '';
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        buffer += value;
        let cut = buffer.indexOf('\n\n');
        while (cut >= 0) {
          const event = /^event: (.+)$/m.exec(buffer.slice(0, cut));
          if (event?.[1] !== undefined) onTopic(event[1]);
          buffer = buffer.slice(cut + 2);
          cut = buffer.indexOf('\n\n');
        }
      }
    } catch {
      // dropped or refused: wait and try again (views also refresh on their own timer)
    }
    await new Promise((resolve) => setTimeout(resolve, 3_000));
  }
}
