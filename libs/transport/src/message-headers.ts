import type { MsgHdrs } from '@nats-io/transport-node';
import type { HeaderDoc } from '#core';
import { OutgoingHeaders } from './outgoing-headers.js';

/**
 * NATS headers to publish from the runtime's ordered header list (order kept, so republishes are
 * identical). An {@link OutgoingHeaders}: encoded once, without the client's per-append copies.
 */
export function toMsgHdrs(list: readonly HeaderDoc[]): OutgoingHeaders {
  return new OutgoingHeaders(list);
}

/** The runtime's header list from NATS headers (first value of each name, in arrival order). */
export function fromMsgHdrs(h: MsgHdrs | undefined): HeaderDoc[] {
  if (h === undefined) return [];
  const out: HeaderDoc[] = [];
  for (const [name, values] of h) {
    for (const value of values) out.push({ name, value });
  }
  return out;
}

/** The first value of header `name`, or undefined. */
export function headerValue(h: MsgHdrs | undefined, name: string): string | undefined {
  if (h === undefined || !h.has(name)) return undefined;
  return h.get(name);
}
