import { ErrorReason, type AgentDefinition, type DirectElementScreen } from '#core';
import { screenEvent, type EventLimits } from '#routing';

/**
 * The activator's screen for every event element and for direct elements: exactly the rules ingress applies to an event
 * (`screenEvent`: known agent, key, size, the agent's `validateEvent`), with the same limits
 * (`ingress.*` of the shared configuration), so a refusal has the same reason and detail whichever
 * way the event came in. Direct publishing carries events only: a result, approval or timer
 * under the direct header is refused as malformed. Pure, so a redelivery is screened identically.
 */
export function directScreen(agents: ReadonlyMap<string, AgentDefinition>, limits: EventLimits): DirectElementScreen {
  return (element, agent) => {
    if (element.payload.kind !== 'event') {
      return { reason: ErrorReason.MalformedInput, detail: `a direct publish carries events only, not ${element.payload.kind}s` };
    }
    return screenEvent({ agent, entityKey: element.entityKey, event: element.payload.event }, agents, limits);
  };
}
