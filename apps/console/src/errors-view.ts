/**
 * Reads the errors view (the errors stream's records of the last day, grouped by agent and
 * reason) and redrives a group through the same code as `nats-agents errors redrive`: derived
 * message ids and an audit record per event, so pressing the button twice publishes nothing twice.
 */
import { decodeErrorRecord, errorRecordSource } from '#core';
import { redrive, type RedriveReport } from '#client';
import { encodeKeyToken } from '#routing';
import { keyText, type ConsoleNats } from './console-nats.js';
import { groupErrors, type ErrorGroup, type ErrorRecordView } from './error-groups.js';
import { storedMessages } from './stored-messages.js';

/** How far back the errors view reads. */
export const ERRORS_WINDOW_MS = 24 * 60 * 60_000;

/** The error records of the last day, grouped. */
export async function readErrors(nats: ConsoleNats, nowMs: number): Promise<ErrorGroup[]> {
  const records: ErrorRecordView[] = [];
  const messages = await storedMessages(nats.js, { stream: nats.topology.streams.errors.name, filter: nats.topology.errorsFilter(), limit: nats.maxMessages, sinceMs: nowMs - ERRORS_WINDOW_MS });
  for (const msg of messages) {
    try {
      const record = decodeErrorRecord(msg.data);
      records.push({
        seq: msg.seq,
        agent: record.agent,
        reason: record.reason,
        detail: record.detail,
        key: keyText(record.entityKey),
        keyToken: record.entityKey.length === 0 ? '' : encodeKeyToken(record.entityKey),
        eventTimeMs: record.eventTimeMs,
        storedAtMs: msg.storedAtMs,
        redrivable: errorRecordSource(msg.data) !== undefined,
      });
    } catch {
      // a record the console cannot decode stays readable with `nats-agents tail errors`
    }
  }
  return groupErrors(records);
}

/** Redrives one (agent, reason) group, as `requestedBy`. */
export function redriveGroup(nats: ConsoleNats, agent: string, reason: string, requestedBy: string, nowMs: number): Promise<RedriveReport> {
  return redrive(nats.client, { agent, reason, requestedBy, nowMs });
}
