/**
 * A `Map` for long-lived registries with churning keys (one entry per key in flight): each value
 * sits in a slot, and deleting a key empties its slot.
 *
 * Why: as entries churn, V8 replaces a `Map`'s hash table, and the replaced table keeps the
 * entries it had (and a link to its successor) until the next full collection. Once a map has
 * lived long enough for its table to be in the old generation, every replacement table is
 * allocated there too, so each replaced table was a dead old object pointing at young values: a
 * scavenge had to treat them as alive, copied them, and promoted them at the next one. With
 * slots, a replaced table points at slots that hold a live value or nothing
 * (docs/decisions/0071-settled-entries-hold-nothing.md).
 *
 * Process memory only: nothing here survives a crash, and nothing about the entries changes on
 * redelivery or replay.
 */
export class SlotMap<K, V> {
  private readonly slots = new Map<K, { value: V | undefined }>();

  get(key: K): V | undefined {
    return this.slots.get(key)?.value;
  }

  /** Sets `key` to `value`: in its slot if it has one (its place in iteration order is kept), else in a new slot at the end. */
  set(key: K, value: V): void {
    const slot = this.slots.get(key);
    if (slot === undefined) this.slots.set(key, { value });
    else slot.value = value;
  }

  /** Moves `key` to the end of iteration order (most recently used) and returns its value; undefined (and nothing moved) when absent. */
  touch(key: K): V | undefined {
    const slot = this.slots.get(key);
    if (slot === undefined) return undefined;
    this.slots.delete(key);
    this.slots.set(key, slot);
    return slot.value;
  }

  /** Removes `key` and empties its slot; false when absent. */
  delete(key: K): boolean {
    const slot = this.slots.get(key);
    if (slot === undefined) return false;
    this.slots.delete(key);
    slot.value = undefined;
    return true;
  }

  /** The keys, oldest insertion (or {@link touch}) first. */
  keys(): IterableIterator<K> {
    return this.slots.keys();
  }

  get size(): number {
    return this.slots.size;
  }
}
