/**
 * Routing and argument checks of an intent before its tool may start: everything that answers
 * `REJECTED` (the tool is never invoked). Deterministic for a given intent and tool set, so the
 * verdict is the same on every replica that knows the same tools. No side effects.
 */
import {
  ensureError,
  IntentKind,
  SideEffectToolError,
  ToolArgumentError,
  ToolNotFoundError,
  ToolResultStatus,
  validateArguments,
  type AnyToolDefinition,
  type ToolIntentDoc,
} from '#core';
import { failedVerdict, type ToolVerdict } from './tool-verdict.js';

/** The key an intent's arguments may not carry: the effector injects `IntentInfo` itself (no spoofing). */
export const RESERVED_ARGUMENT = 'intent';

/** An intent ready to run, or its rejection. */
export type PreparedCall =
  /** The tool and its validated (possibly coerced) arguments. */
  | { readonly kind: 'ready'; readonly tool: AnyToolDefinition; readonly args: unknown }
  /** Refused without invoking anything. */
  | { readonly kind: 'rejected'; readonly verdict: ToolVerdict };

/**
 * Resolves the intent's tool and validates its arguments. `REJECTED` for: an approval intent on
 * the tool lane, an unknown tool, a read-only tool (it reached the effector by mistake), arguments
 * that are not JSON or not a JSON object, arguments carrying an `intent` key, and arguments the
 * tool's schema refuses.
 */
export async function prepareToolCall(intent: ToolIntentDoc, tools: ReadonlyMap<string, AnyToolDefinition>): Promise<PreparedCall> {
  const name = intent.toolName;
  const reject = (error: Error): PreparedCall => ({ kind: 'rejected', verdict: failedVerdict(ToolResultStatus.Rejected, error) });
  if (intent.kind === IntentKind.Approval) {
    return reject(new ToolArgumentError(name, 'approval intents are decided by humans (agents.approval-requests), never executed by the effector'));
  }
  const tool = tools.get(name);
  if (tool === undefined) return reject(new ToolNotFoundError(name, `no tool named '${name}' is registered with this effector`));
  if (!tool.sideEffect) return reject(new SideEffectToolError(name, `tool '${name}' is read-only: it runs inline in the agent, never as an intent`));
  let parsed: unknown;
  try {
    parsed = JSON.parse(intent.argsJson);
  } catch (error) {
    return reject(new ToolArgumentError(name, `arguments of '${name}' are not JSON: ${(error as Error).message}`));
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    return reject(new ToolArgumentError(name, `arguments of '${name}' must be a JSON object`));
  }
  if (Object.hasOwn(parsed, RESERVED_ARGUMENT)) {
    return reject(new ToolArgumentError(name, `arguments of '${name}' may not carry an '${RESERVED_ARGUMENT}' key: the effector supplies the intent's identity`));
  }
  try {
    return { kind: 'ready', tool, args: await validateArguments(name, tool.schema, parsed) };
  } catch (error) {
    return reject(ensureError(error));
  }
}
