/**
 * @packageDocumentation
 * The Vercel AI SDK adapter (`ai@6`, language model specification `v3`): agents written with
 * `generateText` keep the runtime's guarantees. {@link agentModel} routes every model call through
 * `ctx.callModel` (replay cache, budgets, provider protection); {@link aiSdkSession} turns
 * side-effecting tools into intents and runs `generateText` with tools and a step limit across
 * suspensions; {@link aiSdkProvider} is the deployment side, serving those calls with any AI SDK
 * model. The runtime does not depend on this package.
 *
 * @module ai-sdk
 */
export { agentModel } from './agent-model.js';
export { aiSdkSession } from './agent-session.js';
export type { AiSdkSession, SessionOutcome, SideEffectToolOptions, ToolFailure } from './agent-session.js';
export { aiSdkProvider } from './ai-sdk-provider.js';
export { toModelRequest, toGenerateResult } from './call-mapping.js';
export { AI_SDK_ENVELOPE_FORMAT } from './model-envelope.js';
