// Every runtime publish carries a derived Nats-Msg-Id so a republish after a crash is stored once; the derivations are pinned here so no release silently changes them.
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { errorMessageId, ingestForwardMessageId, ingressErrorMessageId, journalMessageId, outputMessageId, redriveMessageId, timerMessageId } from './message-id.js';
import { IdNamespace } from './namespaces.js';

const utf8 = (text: string): Uint8Array => new TextEncoder().encode(text);

function rfc4122v5(name: string, namespace: string): string {
  const hash = createHash('sha1').update(Buffer.from(namespace.replaceAll('-', ''), 'hex')).update(name, 'utf8').digest().subarray(0, 16);
  hash[6] = ((hash[6] ?? 0) & 0x0f) | 0x50;
  hash[8] = ((hash[8] ?? 0) & 0x3f) | 0x80;
  const h = hash.toString('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

describe('message ids', () => {
  it('derives output ids from (agent, hex key, seq, index) in the output namespace', () => {
    expect(outputMessageId('triage', utf8('k'), 4, 1)).toBe(rfc4122v5('triage|6b|4|1', IdNamespace.Output));
    expect(outputMessageId('triage', utf8('k'), 4, 1)).toBe(outputMessageId('triage', utf8('k'), 4, 1));
    const ids = new Set([
      outputMessageId('triage', utf8('k'), 4, 1),
      outputMessageId('triage', utf8('k'), 4, 2),
      outputMessageId('triage', utf8('k'), 5, 1),
      outputMessageId('triage', utf8('j'), 4, 1),
      outputMessageId('other', utf8('k'), 4, 1),
    ]);
    expect(ids.size).toBe(5);
  });

  it('derives error ids from (agent, hex key, inbox seq) in the error namespace', () => {
    expect(errorMessageId('triage', utf8('k'), 9)).toBe(rfc4122v5('triage|6b|9', IdNamespace.ErrorRecord));
  });

  it('derives ingress and timer ids in their own namespaces', () => {
    expect(ingressErrorMessageId('AGENTS_INGEST', 12, 1_700_000_000_123_456_789n)).toBe(rfc4122v5('error|AGENTS_INGEST|12|1700000000123456789', IdNamespace.Ingest));
    expect(ingestForwardMessageId('AGENTS_INGEST', 12, 1_700_000_000_123_456_789n)).toBe(rfc4122v5('AGENTS_INGEST|12|1700000000123456789', IdNamespace.Ingest));
    // The same sequence stored at another instant forwards under another id (not predictable from the sequence).
    expect(ingestForwardMessageId('AGENTS_INGEST', 12, 1n)).not.toBe(ingestForwardMessageId('AGENTS_INGEST', 12, 2n));
    expect(timerMessageId('triage', utf8('k'), 'idle', 1_000)).toBe(rfc4122v5('triage|6b|idle|1000', IdNamespace.Timer));
  });

  it('derives replay journal ids from (agent, hex key, commit seq) in the journal namespace', () => {
    expect(journalMessageId('triage', utf8('k'), 4)).toBe(rfc4122v5('triage|6b|4', IdNamespace.Journal));
    expect(journalMessageId('triage', utf8('k'), 4)).not.toBe(journalMessageId('triage', utf8('k'), 5));
    expect(journalMessageId('triage', utf8('k'), 4)).not.toBe(errorMessageId('triage', utf8('k'), 4));
  });

  it('keeps output and error ids apart even for the same numbers', () => {
    expect(outputMessageId('a', utf8('k'), 1, 0)).not.toBe(errorMessageId('a', utf8('k'), 1));
  });

  it('uses eight distinct namespaces', () => {
    expect(new Set(Object.values(IdNamespace)).size).toBe(8);
  });

  it('derives a redrive id from the source element alone, distinct per element', () => {
    expect(redriveMessageId('AGENTS_INBOX', 7)).toBe(redriveMessageId('AGENTS_INBOX', 7));
    expect(redriveMessageId('AGENTS_INBOX', 7)).not.toBe(redriveMessageId('AGENTS_INBOX', 8));
  });
});
