// The lane and kind vocabularies are wire strings; pinned here so a rename cannot slip through as a refactor.
import { describe, expect, it } from 'vitest';
import { InboxKind, isInboxKind } from './inbox-kind.js';
import { IngestLane, inboxKindOfLane, isIngestLane } from './ingest-lane.js';

describe('IngestLane', () => {
  it('forwards each ingest lane as its inbox kind', () => {
    expect(inboxKindOfLane(IngestLane.Events)).toBe('event');
    expect(inboxKindOfLane(IngestLane.Results)).toBe('result');
    expect(inboxKindOfLane(IngestLane.Approvals)).toBe('approval');
  });

  it('recognises exactly the three public lanes', () => {
    expect(Object.values(IngestLane).filter(isIngestLane)).toEqual(['events', 'results', 'approvals']);
    expect(['event', 'inbox', 'approval-requests', 'Events', ''].filter(isIngestLane)).toEqual([]);
  });
});

describe('InboxKind', () => {
  it('recognises exactly the four inbox kinds', () => {
    expect(Object.values(InboxKind).filter(isInboxKind)).toEqual(['event', 'result', 'approval', 'timer']);
    expect(['evt', 'tool', 'events', 'Timer', ''].filter(isInboxKind)).toEqual([]);
  });
});
