/**
 * The stored form of the checkpoint tables: keys sorted, and the random message ids LangGraph
 * gives messages renamed to derived ones. LangGraph's message reducer names every message that has
 * no id with a random (version 4) UUID, so the same activation stored different bytes on every run
 * (decision 0060). The live tables of a run keep LangGraph's ids (the run stays consistent with
 * itself); only the copy written to working memory is canonical, and that copy is what the next
 * activation — or a replay of the same element — starts from.
 *
 * A message's new id is a version 5 UUID of the thread's newest checkpoint id (itself derived,
 * decision 0060) and the order in which the message is first met in the sorted tables, so the same
 * element always yields the same bytes and two activations never reuse an id. Ids that are not
 * version 4 UUIDs (a model's or a caller's own ids, ids renamed by an earlier activation) are kept.
 * Every occurrence of a renamed id in the stored checkpoint and pending writes is renamed alike.
 */
import { uuid5 } from '@langchain/langgraph-checkpoint';

/** The namespace of derived message ids (a fixed v4 UUID of this adapter). */
const MESSAGE_ID_NAMESPACE = '0c7c4f55-7b9e-4b8e-9a5f-3f1d2b6a8e41';
const RANDOM_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

type Tables = { storage: Record<string, unknown>; writes: Record<string, unknown> };

const utf8 = new TextDecoder('utf-8', { fatal: true });
const encoder = new TextEncoder();

/** A serialized LangChain message: `{ lc: 1, type: 'constructor', id: [.., 'messages', ..], kwargs: { id } }`. */
function isSerializedMessage(value: unknown): value is { kwargs: { id?: unknown } } {
  const v = value as { lc?: unknown; type?: unknown; id?: unknown; kwargs?: unknown };
  return typeof value === 'object' && value !== null && v.lc === 1 && v.type === 'constructor' && Array.isArray(v.id) && v.id.includes('messages') && typeof v.kwargs === 'object' && v.kwargs !== null;
}

class Renamer {
  readonly names = new Map<string, string>();
  constructor(private readonly seed: string) {}

  /** Notes the random message ids in `value` (a parsed blob), in document order. */
  visit(value: unknown): void {
    if (Array.isArray(value)) {
      for (const item of value) this.visit(item);
      return;
    }
    if (typeof value !== 'object' || value === null) return;
    if (isSerializedMessage(value)) {
      const id = value.kwargs.id;
      if (typeof id === 'string' && RANDOM_ID.test(id) && !this.names.has(id)) this.names.set(id, uuid5(`${this.seed}|${this.names.size}`, MESSAGE_ID_NAMESPACE));
    }
    for (const item of Object.values(value)) this.visit(item);
  }

  /** A serialized blob with the random message ids renamed (byte for byte otherwise). */
  blob(bytes: Uint8Array): Uint8Array {
    let text: string;
    let parsed: unknown;
    try {
      text = utf8.decode(bytes);
      parsed = JSON.parse(text);
    } catch {
      return bytes; // not a JSON blob: nothing LangGraph's message reducer named
    }
    this.visit(parsed);
    const renamed = text.replace(/"([0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12})"/g, (whole, id: string) => {
      const name = this.names.get(id);
      return name === undefined ? whole : `"${name}"`;
    });
    return renamed === text ? bytes : encoder.encode(renamed);
  }

  /** A copy of `value` with sorted keys and renamed blobs (the live value is not changed). */
  copy(value: unknown): unknown {
    if (value instanceof Uint8Array) return this.blob(value);
    if (Array.isArray(value)) return value.map((item) => this.copy(item));
    if (typeof value !== 'object' || value === null) return value;
    const out = Object.create(null) as Record<string, unknown>;
    for (const key of Object.keys(value).sort()) out[key] = this.copy((value as Record<string, unknown>)[key]);
    return out;
  }
}

/** The newest checkpoint id of the tables (the seed of this activation's message names). */
function newestCheckpointId(tables: Tables): string {
  let newest = '';
  for (const namespaces of Object.values(tables.storage as Record<string, Record<string, Record<string, unknown>>>)) {
    for (const checkpoints of Object.values(namespaces)) for (const id of Object.keys(checkpoints)) if (id > newest) newest = id;
  }
  return newest;
}

/** The tables as working memory stores them (see the file comment); `tables` is not changed. */
export function canonicalTables(tables: Tables): Tables {
  const renamer = new Renamer(newestCheckpointId(tables));
  return { storage: renamer.copy(tables.storage) as Record<string, unknown>, writes: renamer.copy(tables.writes) as Record<string, unknown> };
}
