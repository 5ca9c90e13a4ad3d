/**
 * @packageDocumentation
 * The LangGraph.js adapter (`@langchain/langgraph@1`): a compiled graph runs inside an activation
 * and keeps the runtime's guarantees. {@link WorkingMemoryCheckpointer} keeps the graph's
 * checkpoints in the key's working memory (committed atomically with the activation);
 * {@link AgentChatModel} routes model calls through `ctx.callModel` (replay cache, budgets,
 * provider protection); {@link sideEffectTool} makes a tool an intent the effector runs once; any
 * other `interrupt()` is a human approval request. {@link langGraphAgent} ties them into an agent.
 * The runtime does not depend on this package.
 *
 * @module langgraph
 */
export { langGraphAgent } from './langgraph-agent.js';
export type { LangGraphAgentOptions, RunnableGraph } from './langgraph-agent.js';
export { WorkingMemoryCheckpointer, CHECKPOINTS_MEMORY_KEY } from './working-memory-checkpointer.js';
export { AgentChatModel } from './agent-chat-model.js';
export type { AgentChatModelFields, AgentChatModelCallOptions } from './agent-chat-model.js';
export { sideEffectTool, isIntentInterrupt, INTENT_INTERRUPT } from './side-effect-tool.js';
export type { IntentInterrupt, ToolFailure } from './side-effect-tool.js';
export { OutsideActivation } from './activation-scope.js';
