import { NodeTransport } from '@nats-io/transport-node/lib/node_transport.js';

/**
 * The official Node transport, with the socket writes of one event-loop turn coalesced into one.
 *
 * The client flushes its outbound buffer on a microtask, so every publish made from its own
 * promise chain (an ack, a state write, an output, the next one's ack…) becomes its own
 * `socket.write`: a system call each, about a tenth of the activator's busy time under load.
 * This transport corks the socket at the first write of a turn and uncorks it in `setImmediate`,
 * so the writes of a turn leave as one `writev`. The bytes and their order are the client's
 * own; only the number of system calls changes (decision 0067). The delay is the rest of the
 * current turn: `setImmediate` runs right after the poll phase, before the loop waits again.
 *
 * On a crash, corked bytes are lost exactly as bytes in the client's own outbound buffer are: the
 * broker never saw them, so nothing was acknowledged, and every caller retries or redelivers as
 * it does for a write lost with the connection. `close()` uncorks first: the official transport
 * destroys the socket once an empty write is acknowledged, which would discard corked bytes.
 */
export class CoalescingNodeTransport extends NodeTransport {
  private corked = false;

  override send(frame: Uint8Array): void {
    const socket = this.socket as NodeTransport['socket'] | undefined;
    if (!this.corked && socket !== undefined && !this.isClosed) {
      this.corked = true;
      socket.cork();
      setImmediate(() => {
        this.corked = false;
        socket.uncork();
      });
    }
    super.send(frame);
  }

  override async close(err?: Error): Promise<void> {
    // An uncork of a socket that is not corked is a no-op, so the pending setImmediate's is harmless.
    if (this.corked) (this.socket as NodeTransport['socket'] | undefined)?.uncork();
    await super.close(err);
  }
}
