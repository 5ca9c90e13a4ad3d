import { TerminalError } from '../errors/runtime-error.js';
import type { ModelRequest, ModelResponse } from '../model/model-request.js';
import type { WorkingMemory } from './working-memory.js';

/** The summary a summarizer produced does not make working memory smaller: the activation fails closed. */
export class SummaryDidNotShrink extends TerminalError {
  override readonly name = 'SummaryDidNotShrink';
}

/** What the summarizer asks the model to fold. */
export interface SummarizeInput {
  /** The summary folded so far (the fold is cumulative), if any. */
  readonly previousSummary: string | undefined;
  /** The ring items to fold, oldest first, source keys in the configured order. */
  readonly items: readonly string[];
}

/**
 * Opt-in summarizing compaction: when working memory reaches `triggerBytes` at the end of an
 * activation, the older items of the `sourceKeys` rings (all but the newest `keepRecent`) are folded
 * into one summary entry by a model call. The call goes through `ctx.callModel`, so it is
 * replay-cached and a retried activation folds without calling the provider again; the result is
 * staged and commits with the activation. A summary that does not shrink memory fails the
 * activation closed (`activation_error`, nothing committed).
 */
export interface SummarizeOptions {
  /** Rings whose older items are folded. */
  readonly sourceKeys: readonly string[];
  /** Where the summary lives. Default `summary`. */
  readonly summaryKey?: string;
  /** Newest items kept verbatim per ring. Default 8; 0 removes the rings entirely. */
  readonly keepRecent?: number;
  /** Size at which folding starts. Default 786,432 (the soft cap). */
  readonly triggerBytes?: number;
  /** Builds the model request; must be a pure function of its input. */
  readonly buildRequest: (input: SummarizeInput) => ModelRequest;
  /** Extracts the summary text from the response. Default: the response text. */
  readonly extractSummary?: (response: ModelResponse) => string;
}

/** Default trigger of summarizing compaction: the soft cap. */
export const DEFAULT_SUMMARY_TRIGGER_BYTES = 786_432;

/**
 * Folds when due; returns whether a model call was made. Pure but for `callModel` (cache-first),
 * so the same committed memory and the same cached answer fold to byte-identical memory.
 */
export async function summarizeIfDue(memory: WorkingMemory, callModel: (request: ModelRequest) => Promise<ModelResponse>, options: SummarizeOptions): Promise<boolean> {
  const trigger = options.triggerBytes ?? DEFAULT_SUMMARY_TRIGGER_BYTES;
  const keepRecent = options.keepRecent ?? 8;
  const summaryKey = options.summaryKey ?? 'summary';
  if (!Number.isInteger(keepRecent) || keepRecent < 0) throw new RangeError(`keepRecent must be a non-negative integer, got ${keepRecent}`);
  if (memory.sizeBytes < trigger) return false;

  const folds: { key: string; kept: string[] }[] = [];
  const items: string[] = [];
  for (const key of options.sourceKeys) {
    if (!memory.has(key)) continue;
    const ring = memory.ringText(key);
    if (ring.length <= keepRecent) continue;
    items.push(...ring.slice(0, ring.length - keepRecent));
    folds.push({ key, kept: ring.slice(ring.length - keepRecent) });
  }
  if (items.length === 0) return false;

  const before = memory.sizeBytes;
  const previousSummary = memory.has(summaryKey) ? memory.getText(summaryKey) : undefined;
  const response = await callModel(options.buildRequest({ previousSummary, items }));
  const summary = options.extractSummary ? options.extractSummary(response) : response.text;
  for (const { key, kept } of folds) {
    memory.delete(key);
    for (const item of kept) memory.append(key, item, { maxItems: Math.max(keepRecent, 1) });
  }
  memory.set(summaryKey, summary);
  if (memory.sizeBytes >= before) {
    throw new SummaryDidNotShrink(`the summary left working memory at ${memory.sizeBytes} bytes, not below the ${before} it replaces`);
  }
  return true;
}
