/**
 * The scripted model behind the demo and the example agents: deterministic, offline, free.
 * It answers chat requests with a greeting built from the last user message, in the
 * OpenAI chat-completions shape, so agents read `reply.text` exactly as with a real provider.
 */
import type { FakeLlmRule } from '#providers';
import { matchAny, respondWithChat } from '#providers';

function lastUserMessage(messages: readonly unknown[]): string {
  for (let i = messages.length - 1; i >= 0; i -= 1) {
    const message = messages[i] as { role?: unknown; content?: unknown };
    if (message.role === 'user' && typeof message.content === 'string') return message.content;
  }
  return '';
}

export const rules: readonly FakeLlmRule[] = [
  [
    matchAny(),
    respondWithChat((request) => {
      const match = /^Greet (.+?)\./.exec(lastUserMessage(request.messages));
      return match ? `Hello, ${match[1]}! Nice to see you.` : 'Hello!';
    }),
  ],
];
