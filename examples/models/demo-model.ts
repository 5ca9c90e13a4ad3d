/**
 * The scripted model behind the demo and the example agents: deterministic, offline, free.
 * It answers chat requests in the OpenAI chat-completions shape, so agents read `reply.text`
 * exactly as with a real provider: a reconciliation request (the facts agent) gets a verdict
 * judged by a simple rule — same subject and the same normalised value is a duplicate, same
 * subject and another value a conflict — and anything else a greeting built from the last user
 * message.
 */
import type { FakeLlmRule } from '#providers';
import { matchAny, matchContains, respondWithChat } from '#providers';

/** The first line of the facts agent's reconciliation prompt. */
const RECONCILE = 'Reconcile these facts.';

/** A value reduced to what a duplicate must share: its first number, else its letters and digits. */
function normalised(value: string): string {
  return /\d+(\.\d+)?/.exec(value)?.[0] ?? value.toLowerCase().replace(/[^a-z0-9]/g, '');
}

/** The verdict over the prompt's fact lines (`{"key","subject","value"}` each). */
function reconcile(prompt: string): string {
  const facts = prompt
    .split('\n')
    .slice(1)
    .map((line) => JSON.parse(line) as { key: string; subject: string; value: string });
  const duplicates: [string, string][] = [];
  const conflicts: [string, string][] = [];
  for (let i = 0; i < facts.length; i += 1) {
    for (let j = i + 1; j < facts.length; j += 1) {
      const a = facts[i]!;
      const b = facts[j]!;
      if (a.subject !== b.subject) continue;
      (normalised(a.value) === normalised(b.value) ? duplicates : conflicts).push([a.key, b.key]);
    }
  }
  return JSON.stringify({ duplicates, conflicts });
}

function lastUserMessage(messages: readonly unknown[]): string {
  for (let i = messages.length - 1; i >= 0; i -= 1) {
    const message = messages[i] as { role?: unknown; content?: unknown };
    if (message.role === 'user' && typeof message.content === 'string') return message.content;
  }
  return '';
}

export const rules: readonly FakeLlmRule[] = [
  [matchContains(RECONCILE), respondWithChat((request) => reconcile(lastUserMessage(request.messages)))],
  [
    matchAny(),
    respondWithChat((request) => {
      const match = /^Greet (.+?)\./.exec(lastUserMessage(request.messages));
      return match ? `Hello, ${match[1]}! Nice to see you.` : 'Hello!';
    }),
  ],
];
