/**
 * How `nats-agents replay` prints: one line per replayed element (and its state with
 * `--print-state`), then the divergences and the verdict. With `--json`, one JSON object per line
 * (`{"step":…}`, then `{"report":…}`) for scripts.
 */
import { entityKeyHex, type ActorDocument, type ReplayDivergence, type ReplayReport, type ReplayStep } from '#core';

const utf8 = new TextDecoder();

/** A document as `nats-agents state` prints it, with memory values as text. */
export function printableState(doc: ActorDocument | undefined): Record<string, unknown> | null {
  if (doc === undefined) return null;
  return {
    key: utf8.decode(doc.entityKey),
    keyHex: entityKeyHex(doc.entityKey),
    seq: doc.seq,
    lastAppliedSeq: doc.lastAppliedSeq,
    memory: doc.memory.entries.map((e) => ({ key: e.key, value: utf8.decode(e.value.subarray(1)), lastAccessMs: e.lastAccessMs })),
    replayCache: doc.llmCache.entries.length,
    continuation: doc.continuation
      ? {
          seq: doc.continuation.seq,
          stepIndex: doc.continuation.stepIndex,
          pendingIntentIds: doc.continuation.pendingIntentIds,
          snapshot: utf8.decode(doc.continuation.snapshot),
          deadlineMs: doc.continuation.deadlineMs,
          escalations: doc.continuation.escalations,
        }
      : null,
    pending: doc.pending.map((i) => ({ intentId: i.intentId, tool: i.toolName, kind: i.kind, args: i.argsJson })),
    deferred: doc.deferred.length,
    timers: doc.timers,
  };
}

function divergenceLine(d: ReplayDivergence): string {
  const sides = [d.recorded !== undefined ? `recorded: ${d.recorded}` : '', d.replayed !== undefined ? `replayed: ${d.replayed}` : ''].filter((s) => s !== '').join('; ');
  return `  element ${d.element} (inbox seq ${d.inboxSeq}): ${d.what} ${d.id} ${d.problem}${sides ? ` (${sides})` : ''}`;
}

/** Prints one replayed element. */
export function printStep(step: ReplayStep, options: { readonly json: boolean; readonly printState: boolean }): void {
  if (options.json) {
    const { state, published, ...rest } = step;
    console.log(JSON.stringify({ step: { ...rest, published: published.length, ...(options.printState ? { state: printableState(state) } : {}) } }));
    return;
  }
  const verdict = step.divergences.length === 0 ? 'same' : `${step.divergences.length} divergence(s)`;
  console.log(`element ${step.element}: inbox seq ${step.inboxSeq} ${step.kind} at ${step.eventTimeMs} -> ${step.status ?? step.decision}, ${step.published.length} published, ${verdict}`);
  if (options.printState) console.log(JSON.stringify(printableState(step.state), null, 2));
}

/** Prints the verdict and every divergence. */
export function printReplayReport(report: ReplayReport, options: { readonly json: boolean }): void {
  if (options.json) {
    const { steps, ...rest } = report;
    console.log(JSON.stringify({ report: { ...rest, replayed: steps.length } }));
    return;
  }
  switch (report.outcome) {
    case 'reproduced':
      console.log(`reproduced: ${report.steps.length} elements replayed with no divergence${report.notApplied > 0 ? `; ${report.notApplied} inbox elements were not applied yet and were not replayed` : ''}`);
      return;
    case 'diverged':
      console.log(`diverged: ${report.divergences.length} divergence(s) over ${report.steps.length} elements`);
      for (const d of report.divergences) console.log(divergenceLine(d));
      if (report.historyMayBeIncomplete) console.log('note: the inbox stream had dropped older messages when the snapshot was taken; if the key is older than them, its replay starts mid-history and diverges');
      return;
    case 'irreproducible':
      console.log(`irreproducible: ${report.reason}`);
      for (const line of irreproducibleRemedies(report)) console.log(`  ${line}`);
      return;
  }
}

/**
 * What to do about an irreproducible replay. A completed activation's model responses are in a
 * snapshot only when the deployment journaled them (decision 0073): without that, a scripted model
 * answers them, the elements before can be checked alone, the journal can be turned on for later
 * activations, or a snapshot taken while that activation is suspended holds its responses.
 */
export function irreproducibleRemedies(report: Extract<ReplayReport, { outcome: 'irreproducible' }>): string[] {
  const models = [...new Set(report.misses.map((m) => m.model))].join(', ');
  const completed = report.misses.some((m) => m.why === 'completed');
  return [
    `to replay element ${report.element} and after: add --model-script <module>, a fake-model script whose \`rules\` answer model ${models} (as AGENTS_MODEL_SCRIPT; see docs/replay.md#model-responses)`,
    ...(report.element > 1 ? [`to check the elements before it: --through ${report.element - 1}`] : []),
    ...(completed
      ? [
          'to record the responses of activations to come: keep activator.replayJournal on (the default) and streams.journalMaxAgeMs at least as long as the inbox keeps elements (docs/replay.md#the-replay-journal)',
          "to replay that activation with its recorded responses: take the snapshot while the key is suspended in it (a suspension's responses are in its state)",
        ]
      : []),
  ];
}
