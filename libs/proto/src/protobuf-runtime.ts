/**
 * Configures the shared protobufjs runtime once, before any message is decoded.
 *
 * - `util.Long = null`: int64 fields decode to plain numbers. Every int64 we carry (seq, stream
 *   sequences, epoch milliseconds) stays far below 2^53.
 * - `Reader.discardUnknown = false`: fields this binary does not know survive decode and
 *   re-encode of a generated message, so a service that passes a newer wire message along
 *   (an intent, a result) forwards it intact. The actor document does not rely on this: any
 *   change to it bumps the state schema version (see proto/nats_agents/v1/state.proto).
 *
 * Importing this module has exactly these two side effects on `protobufjs/minimal.js`.
 */
import $protobuf from 'protobufjs/minimal.js';

$protobuf.util.Long = null as unknown as typeof $protobuf.util.Long;
$protobuf.configure();
$protobuf.Reader.discardUnknown = false;

export const protobufRuntimeConfigured = true;
