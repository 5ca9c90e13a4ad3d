/**
 * The replay-determinism check: the element a key processed, processed again from the same
 * committed state on a fresh runtime, must stage byte-identical effects (state document and every
 * published entry) and make no model call the first run did not make. This is what a redelivery
 * after a lost commit, or an offline replay, relies on (invariants 2 and 3): an agent reading the
 * wall clock, drawing random numbers or iterating a nondeterministic order fails it.
 */
import {
  ActorHarness,
  InMemoryStateStore,
  TerminalError,
  canonicalJson,
  decodeActorDocument,
  type AgentDefinition,
  type DecodedResponse,
  type InboxElement,
  type ModelProvider,
  type ModelRequest,
  type OutboxEntryDoc,
} from '#core';

/** The verdict of a determinism check. */
export interface DeterminismReport {
  /** True when the second run staged the same bytes and made no new model call. */
  readonly deterministic: boolean;
  /** Model calls the second run made that the first did not (each one would be paid again). */
  readonly repeatModelCalls: number;
  /** Every difference, named: `state: ...`, `published[2]: ...`, `model call #1: ...`. */
  readonly differences: readonly string[];
}

/** What {@link checkElementDeterminism} compares. */
export interface DeterminismInput {
  readonly agent: AgentDefinition;
  readonly agents: readonly AgentDefinition[];
  readonly stateKey: string;
  /** The committed state bytes before the first run (undefined: a fresh key). */
  readonly before: Uint8Array | undefined;
  readonly element: InboxElement;
  /** The committed state bytes after the first run. */
  readonly firstState: Uint8Array | undefined;
  /** Every entry the first run published, republishes included. */
  readonly firstPublished: readonly OutboxEntryDoc[];
  /** The first run's provider calls with their answers. */
  readonly firstRequests: readonly { readonly request: ModelRequest; readonly body: Uint8Array }[];
  readonly decode: ((body: Uint8Array) => DecodedResponse) | undefined;
}

/** Answers only requests the first run made, in the order it made them; anything else is a repeat call. */
class RepeatingModel implements ModelProvider {
  readonly name = 'determinism-check';
  readonly unanswered: string[] = [];
  private readonly queue: { readonly request: string; readonly body: Uint8Array; used: boolean }[];
  decode?: (body: Uint8Array) => DecodedResponse;

  constructor(first: DeterminismInput['firstRequests'], decode: DeterminismInput['decode']) {
    this.queue = first.map((f) => ({ request: canonicalJson(f.request as never), body: f.body, used: false }));
    if (decode !== undefined) this.decode = decode;
  }

  complete(request: ModelRequest): Promise<Uint8Array> {
    const wanted = canonicalJson(request as never);
    const entry = this.queue.find((e) => !e.used && e.request === wanted);
    if (entry === undefined) {
      this.unanswered.push(wanted);
      return Promise.reject(new TerminalError(`a model call the first run did not make: ${wanted.slice(0, 200)}`));
    }
    entry.used = true;
    return Promise.resolve(entry.body);
  }
}

const hex = (bytes: Uint8Array): string => Buffer.from(bytes).toString('hex');

function describeEntry(entry: OutboxEntryDoc): string {
  return `${entry.subject} msgId=${entry.msgId} payload=${hex(entry.payload)} headers=${entry.headers.map((h) => `${h.name}:${h.value}`).join(',')}`;
}

/** Runs `element` again from `before` and compares; see {@link DeterminismReport}. */
export async function checkElementDeterminism(input: DeterminismInput): Promise<DeterminismReport> {
  const store = new InMemoryStateStore();
  if (input.before !== undefined) store.put(input.stateKey, input.before);
  const model = new RepeatingModel(input.firstRequests, input.decode);
  const harness = new ActorHarness({ agents: input.agents, store, provider: model });
  await harness.process(input.agent.name, input.element);
  const differences: string[] = [];
  model.unanswered.forEach((request, i) => differences.push(`model call #${i + 1}: the second run asked the model something the first did not (${request.slice(0, 200)})`));
  const second = store.bytes(input.stateKey);
  if ((second === undefined) !== (input.firstState === undefined) || (second !== undefined && input.firstState !== undefined && hex(second) !== hex(input.firstState))) {
    differences.push(`state: the committed document differs${stateHint(input.firstState, second)}`);
  }
  const published = harness.publisher.batches.flat();
  const count = Math.max(published.length, input.firstPublished.length);
  for (let i = 0; i < count; i += 1) {
    const a = input.firstPublished[i];
    const b = published[i];
    if (a === undefined || b === undefined) {
      differences.push(`published[${i}]: ${a === undefined ? 'only the second run' : 'only the first run'} published ${describeEntry((a ?? b) as OutboxEntryDoc)}`);
    } else if (describeEntry(a) !== describeEntry(b)) {
      differences.push(`published[${i}]: first ${describeEntry(a)}, second ${describeEntry(b)}`);
    }
  }
  return { deterministic: differences.length === 0, repeatModelCalls: model.unanswered.length, differences };
}

/** Which part of the document differs, when both exist (memory, cache, continuation, outbox…). */
function stateHint(first: Uint8Array | undefined, second: Uint8Array | undefined): string {
  if (first === undefined || second === undefined) return '';
  const a = decodeActorDocument(first.slice()) as unknown as Record<string, unknown>;
  const b = decodeActorDocument(second.slice()) as unknown as Record<string, unknown>;
  const fields = Object.keys(a).filter((field) => canonicalJson(jsonable(a[field])) !== canonicalJson(jsonable(b[field])));
  return fields.length === 0 ? '' : ` (${fields.join(', ')})`;
}

function jsonable(value: unknown): never {
  return JSON.parse(JSON.stringify(value ?? null, (_k, v: unknown) => (v instanceof Uint8Array ? hex(v) : typeof v === 'bigint' ? v.toString() : v))) as never;
}
