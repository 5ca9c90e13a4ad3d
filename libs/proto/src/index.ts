import { protobufRuntimeConfigured } from './protobuf-runtime.js';
import { nats_agents } from './generated/agents.js';

void protobufRuntimeConfigured;
export const v1 = nats_agents.v1;
export type { nats_agents } from './generated/agents.js';
