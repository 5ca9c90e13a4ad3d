/**
 * The facts agent: the reconciliation pass of seed 004, model-driven. Each event is one fact an
 * extractor pulled out of a conversation about the entity; the agent keeps it in the long-term
 * tier (type `fact`, indefinite retention) and, every few extractions, asks the model which of
 * the entity's active facts duplicate or contradict each other, then retires the losers with
 * `supersede` — never deletes them, so the chain of `supersededBy` pointers explains how a belief
 * changed and a bad pass is reversible (`restore`):
 *
 * - duplicates (the same claim in other words): keep the one with the higher confidence;
 * - conflicts (a change of state): keep the newer one, whatever its confidence — recency is the
 *   evidence.
 *
 * Replay safety (seed 000): the pool the model sees comes from working memory (an index of the
 * active facts, committed state), never from a long-term read in the same activation, so a retry
 * sends a byte-identical prompt, gets the replay-cached answer, and stages identical writes.
 *
 * Event: `{"subject": "light_runtime_hours", "value": "12", "confidence": 0.8}`.
 * Output: `{"saved": "fact/…", "active": N, "retired": [{"key", "by", "why"}]}`.
 */
import { complete, defineAgent } from '#sdk';

/** A reconciliation pass runs after every this many extractions (the pass is quadratic in facts). */
export const RECONCILE_EVERY = 3;

/** The pool is bounded: the newest active facts only. */
export const POOL_LIMIT = 40;

interface FactEvent {
  readonly subject: string;
  readonly value: string;
  readonly confidence?: number;
}

/** One active fact as the agent indexes it in working memory (a type alias: it is stored as JSON). */
export type IndexedFact = {
  readonly key: string;
  readonly subject: string;
  readonly value: string;
  readonly confidence: number;
  /** The activation seq that extracted it: higher is newer. */
  readonly seq: number;
};

/** The model's verdict over a pool: pairs of fact keys. */
export interface ReconcileVerdict {
  readonly duplicates: readonly (readonly [string, string])[];
  readonly conflicts: readonly (readonly [string, string])[];
}

/** The prompt's first line; the scripted demo model recognises reconciliation requests by it. */
export const RECONCILE_INSTRUCTION =
  'Reconcile these facts. Answer JSON {"duplicates": [[keyA, keyB], ...], "conflicts": [[keyA, keyB], ...]}: duplicates state the same thing, conflicts state different values for the same subject.';

/** The prompt of a pass over `pool`: one JSON line per fact, in key order (stable bytes). */
export function reconcilePrompt(pool: readonly IndexedFact[]): string {
  const lines = [...pool].sort((a, b) => (a.key < b.key ? -1 : 1)).map((f) => JSON.stringify({ key: f.key, subject: f.subject, value: f.value }));
  return [RECONCILE_INSTRUCTION, ...lines].join('\n');
}

/** Which fact each verdict pair retires, by the seed's rules. */
export function losers(verdict: ReconcileVerdict, byKey: ReadonlyMap<string, IndexedFact>): { key: string; by: string; why: 'duplicate' | 'conflict' }[] {
  const out: { key: string; by: string; why: 'duplicate' | 'conflict' }[] = [];
  const newer = (a: IndexedFact, b: IndexedFact): IndexedFact => (a.seq >= b.seq ? a : b);
  for (const [why, pairs] of [['duplicate', verdict.duplicates], ['conflict', verdict.conflicts]] as const) {
    for (const [x, y] of pairs) {
      const a = byKey.get(x);
      const b = byKey.get(y);
      if (a === undefined || b === undefined || a.key === b.key) continue;
      const keep = why === 'duplicate' ? (a.confidence === b.confidence ? newer(a, b) : a.confidence > b.confidence ? a : b) : newer(a, b);
      const lose = keep === a ? b : a;
      if (!out.some((o) => o.key === lose.key)) out.push({ key: lose.key, by: keep.key, why });
    }
  }
  return out;
}

export default defineAgent({
  name: 'facts',
  validateEvent(event) {
    try {
      const value = JSON.parse(new TextDecoder().decode(event)) as Partial<FactEvent>;
      if (typeof value.subject !== 'string' || typeof value.value !== 'string') return 'expected {"subject": string, "value": string, "confidence"?: number}';
      if (value.confidence !== undefined && !(typeof value.confidence === 'number' && value.confidence >= 0 && value.confidence <= 1)) return 'confidence must be a number in [0, 1]';
      return undefined;
    } catch {
      return 'the event must be JSON';
    }
  },
  async handler(ctx) {
    const event = ctx.eventJson<FactEvent>();
    const key = `fact/${event.subject}/${String(ctx.seq).padStart(6, '0')}`;
    const confidence = event.confidence ?? 0.5;
    ctx.memory.longterm.save(key, event.value, { type: 'fact', confidence });

    const index = [...(ctx.memory.getJson<IndexedFact[]>('facts') ?? []), { key, subject: event.subject, value: event.value, confidence, seq: ctx.seq }].slice(-POOL_LIMIT);
    const extractions = (ctx.memory.getJson<number>('extractions') ?? 0) + 1;
    ctx.memory.setJson('extractions', extractions);

    let retired: { key: string; by: string; why: string }[] = [];
    if (extractions % RECONCILE_EVERY === 0 && index.length > 1) {
      const reply = await ctx.callModel({ model: 'fake-1', messages: [{ role: 'user', content: reconcilePrompt(index) }], params: { temperature: 0 } });
      const verdict = parseVerdict(reply.text);
      retired = losers(verdict, new Map(index.map((f) => [f.key, f])));
      for (const { key: old, by } of retired) await ctx.memory.longterm.supersede(old, by);
    }
    const active = index.filter((f) => !retired.some((r) => r.key === f.key));
    ctx.memory.setJson('facts', active);
    return complete({ saved: key, active: active.length, retired });
  },
});

/** A verdict from the model's text; anything unreadable retires nothing (fail safe). */
function parseVerdict(text: string): ReconcileVerdict {
  try {
    const value = JSON.parse(text) as Partial<ReconcileVerdict>;
    const pairs = (p: unknown): [string, string][] =>
      Array.isArray(p) ? p.filter((x): x is [string, string] => Array.isArray(x) && x.length === 2 && x.every((k) => typeof k === 'string')) : [];
    return { duplicates: pairs(value.duplicates), conflicts: pairs(value.conflicts) };
  } catch {
    return { duplicates: [], conflicts: [] };
  }
}
