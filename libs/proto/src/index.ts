/**
 * Generated protobuf messages (`proto/` → `npm run proto:gen`), with the shared runtime
 * configured first: int64 as numbers, unknown fields preserved.
 */
import './protobuf-runtime.js';
import { nats_agents } from './generated/agents.js';

/** The `nats_agents.v1` package: message classes with encode/decode/toObject/fromObject. */
export import v1 = nats_agents.v1;
