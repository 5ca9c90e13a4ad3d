/**
 * Helpers for the re-injection path in tests: read the intents and approval requests a key
 * published, and answer them the way an effector or a human would.
 */
import type { AgentsClient } from '#client';
import { decodeToolIntent, ToolResultStatus, type ToolIntentDoc } from '#core';
import { encodeKeyToken, keyFromText } from '#routing';
import { readStream } from './read-stream.js';

/** Every intent and approval request stored for `agent`/`key` (approval requests) or `agent` (tool intents). */
export async function storedIntents(client: AgentsClient, agent: string, key: string): Promise<ToolIntentDoc[]> {
  const token = encodeKeyToken(keyFromText(key));
  const stored = await readStream(client.nc, client.topology.streams.intents.name);
  return stored
    .filter((m) => m.subject === `agents.approval-requests.${agent}.${token}` || m.subject.startsWith(`agents.intents.${agent}.`))
    .map((m) => decodeToolIntent(m.data))
    .filter((i) => Buffer.from(i.entityKey).equals(Buffer.from(keyFromText(key))));
}

/** Publishes an OK tool result for `intent` carrying `payload` as JSON, the way the effector does. */
export async function answerTool(client: AgentsClient, intent: ToolIntentDoc, payload: unknown, options: { eventTimeMs?: number; msgId?: string; status?: number } = {}): Promise<void> {
  await client.publishResult(
    intent.agent,
    intent.entityKey,
    {
      intentId: intent.intentId,
      entityKey: intent.entityKey,
      seq: intent.seq,
      status: (options.status ?? ToolResultStatus.Ok) as ToolResultStatus,
      payload: new TextEncoder().encode(JSON.stringify(payload)),
      errorMessage: '',
      completedAtMs: options.eventTimeMs ?? Date.now(),
    },
    { ...(options.eventTimeMs !== undefined ? { eventTimeMs: options.eventTimeMs } : {}), msgId: options.msgId ?? intent.intentId },
  );
}
