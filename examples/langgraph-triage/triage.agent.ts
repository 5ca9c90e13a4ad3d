/**
 * A LangGraph.js triage agent: three nodes and a human in the loop.
 *
 * - `agent`: the model (`triage-model`, through `ctx.callModel`) reads the ticket and may call the
 *   `refund` tool;
 * - `approve`: a refund needs a human — `interrupt()` becomes an approval request and the
 *   decision resumes the graph here; a denial is answered to the model as the tool's result;
 * - `tools`: the `refund` tool is side-effecting — an intent the effector runs once per intent id,
 *   whose result resumes the graph.
 *
 * The graph's checkpoints live in the key's working memory and commit with each activation.
 * Event: `{"ticket": "order o-1 arrived broken, please refund 40"}`. Output: `{"reply": "..."}`.
 */
import { AIMessage, ToolMessage } from '@langchain/core/messages';
import { END, interrupt, MessagesAnnotation, START, StateGraph } from '@langchain/langgraph';
import { ToolNode } from '@langchain/langgraph/prebuilt';
import { z } from 'zod';
import { AgentChatModel, langGraphAgent, sideEffectTool, WorkingMemoryCheckpointer } from '#langgraph';

const refund = sideEffectTool('refund', {
  description: 'Refund an order (amount in the order currency).',
  schema: z.object({ orderId: z.string(), amount: z.number().positive() }),
});

const model = new AgentChatModel({ model: 'triage-model' }).bindTools([refund]);

/** The last message, when the model asked for tools. */
const toolCallsOf = (state: typeof MessagesAnnotation.State) => {
  const last = state.messages.at(-1);
  return last !== undefined && AIMessage.isInstance(last) ? (last.tool_calls ?? []) : [];
};

export const triageGraph = new StateGraph(MessagesAnnotation)
  .addNode('agent', async (state) => ({ messages: [await model.invoke(state.messages)] }))
  .addNode('approve', (state) => {
    const calls = toolCallsOf(state);
    const decision = interrupt<{ action: string; calls: unknown }, { approved: boolean; approver?: string; reason?: string }>({ action: 'refund', calls: calls.map((c) => c.args) });
    if (decision.approved) return {};
    return { messages: calls.map((c) => new ToolMessage({ tool_call_id: c.id ?? '', content: JSON.stringify({ error: `denied by ${decision.approver ?? 'nobody'}` }) })) };
  })
  .addNode('tools', new ToolNode([refund]))
  .addEdge(START, 'agent')
  .addConditionalEdges('agent', (state) => (toolCallsOf(state).length > 0 ? 'approve' : END), ['approve', END])
  .addConditionalEdges('approve', (state) => (state.messages.at(-1)?.getType() === 'tool' ? 'agent' : 'tools'), ['agent', 'tools'])
  .addEdge('tools', 'agent')
  .compile({ checkpointer: new WorkingMemoryCheckpointer() });

export default langGraphAgent({
  name: 'triage',
  graph: triageGraph,
  input: (ctx) => ({ messages: [{ role: 'user', content: ctx.eventJson<{ ticket: string }>().ticket }] }),
  output: (state) => ({ reply: String(state.messages.at(-1)?.content ?? '') }),
});
