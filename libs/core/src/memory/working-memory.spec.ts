// The facade is pure staging with exact accounting, so every L01–L07 rule is checkable here without an actor, a bucket or a clock.
import fc from 'fast-check';
import { describe, expect, it, vi } from 'vitest';
import type { MemoryBlobDoc } from '../actor/actor-document.js';
import { TerminalError } from '../errors/runtime-error.js';
import { MemoryKindError } from './memory-kind-error.js';
import { DEFAULT_RING_MAX_ITEMS, MEMORY_HARD_CAP_BYTES, MEMORY_SOFT_CAP_BYTES } from './memory-limits.js';
import { MemoryOverflow } from './memory-overflow.js';
import { encodeRing, encodeScalar } from './memory-value.js';
import { WorkingMemory } from './working-memory.js';

const T0 = 1_700_000_000_000;
const utf8 = (text: string): Uint8Array => new TextEncoder().encode(text);
const bytes = (...values: number[]): Uint8Array => Uint8Array.from(values);
const fresh = (nowMs = T0): WorkingMemory => WorkingMemory.fromBlob(undefined, { nowMs });
/** The next activation over what this one would commit. */
const reload = (memory: WorkingMemory, nowMs: number): WorkingMemory => WorkingMemory.fromBlob(memory.toBlob(), { nowMs });
/** Size recomputed from scratch, the way a reader of the blob would. */
const recomputed = (blob: MemoryBlobDoc): number => blob.entries.reduce((sum, e) => sum + utf8(e.key).length + e.value.length, 0);
const stamps = (memory: WorkingMemory): Record<string, number> =>
  Object.fromEntries(memory.toBlob().entries.map((e) => [e.key, e.lastAccessMs]));

describe('WorkingMemory', () => {
  describe('scalars (L01)', () => {
    it('round-trips bytes, including empty bytes', () => {
      const memory = fresh();
      memory.set('a', bytes(0, 1, 255));
      memory.set('empty', new Uint8Array(0));
      expect(memory.get('a')).toEqual(bytes(0, 1, 255));
      expect(memory.get('empty')).toEqual(new Uint8Array(0));
      expect(memory.has('empty')).toBe(true);
    });

    it('reads a missing key as undefined from every reader', () => {
      const memory = fresh();
      expect(memory.get('nope')).toBeUndefined();
      expect(memory.getText('nope')).toBeUndefined();
      expect(memory.getJson('nope')).toBeUndefined();
      expect(memory.has('nope')).toBe(false);
    });

    it('stores strings as UTF-8 and reads them back as text', () => {
      const memory = fresh();
      memory.set('greeting', 'héllo 👋');
      expect(memory.get('greeting')).toEqual(utf8('héllo 👋'));
      expect(memory.getText('greeting')).toBe('héllo 👋');
    });

    it('keeps a leading byte-order mark when reading text back', () => {
      const memory = fresh();
      memory.set('bom', '\uFEFFtext');
      expect(memory.getText('bom')).toBe('\uFEFFtext');
    });

    it('stores JSON canonically, so key order never changes the stored bytes', () => {
      const memory = fresh();
      memory.setJson('a', { b: 1, a: [true, null, 'x'] });
      memory.setJson('b', { a: [true, null, 'x'], b: 1 });
      expect(memory.getText('a')).toBe('{"a":[true,null,"x"],"b":1}');
      expect(memory.get('a')).toEqual(memory.get('b'));
      expect(memory.getJson('a')).toEqual({ a: [true, null, 'x'], b: 1 });
    });

    it('refuses a non-JSON value in setJson and stages nothing', () => {
      const memory = fresh();
      expect(() => memory.setJson('n', { x: Number.NaN })).toThrow(TypeError);
      expect(memory.has('n')).toBe(false);
      expect(memory.dirty).toBe(false);
    });

    it('throws a SyntaxError from getJson on a non-JSON scalar without touching its recency', () => {
      const memory = WorkingMemory.fromBlob({ entries: [{ key: 'x', value: encodeScalar(utf8('{oops')), lastAccessMs: 5 }], totalBytes: 7 }, { nowMs: T0 });
      expect(() => memory.getJson('x')).toThrow(SyntaxError);
      expect(memory.dirty).toBe(false);
      expect(stamps(memory)).toEqual({ x: 5 });
    });

    it('deletes idempotently and brings the accounted size back to 0', () => {
      const memory = fresh();
      memory.set('a', 'value');
      memory.delete('a');
      memory.delete('a');
      expect(memory.has('a')).toBe(false);
      expect(memory.sizeBytes).toBe(0);
      expect(memory.toBlob()).toEqual({ entries: [], totalBytes: 0 });
    });

    it('hands out copies, so mutating a read or a written array never changes staged memory', () => {
      const memory = fresh();
      const written = bytes(1, 2, 3);
      memory.set('a', written);
      written[0] = 99;
      const read = memory.get('a');
      if (read) read[1] = 99;
      memory.append('r', written);
      written[1] = 42;
      const [item] = memory.ring('r');
      if (item) item[2] = 42;
      expect(memory.get('a')).toEqual(bytes(1, 2, 3));
      expect(memory.ring('r')).toEqual([bytes(99, 2, 3)]);
    });

    it('lets set replace a scalar and keeps the size exact', () => {
      const memory = fresh();
      memory.set('k', 'long value');
      memory.set('k', 'v');
      expect(memory.getText('k')).toBe('v');
      expect(memory.sizeBytes).toBe(1 + 1 + 1);
    });
  });

  describe('recency (L02)', () => {
    it('persists entries least recently used first, with reads and writes re-stamping access time', () => {
      const first = fresh(1000);
      first.set('a', '1');
      first.set('b', '2');
      first.append('c', '3');
      const second = reload(first, 2000);
      expect(second.get('a')).toEqual(utf8('1'));
      expect(second.keys()).toEqual(['b', 'c', 'a']);
      const third = reload(second, 3000);
      third.append('c', '4');
      third.set('b', 'y');
      const blob = third.toBlob();
      expect(blob.entries.map((e) => [e.key, e.lastAccessMs])).toEqual([
        ['a', 2000],
        ['c', 3000],
        ['b', 3000],
      ]);
    });

    it.each([
      ['get', (m: WorkingMemory) => m.get('s')],
      ['getText', (m: WorkingMemory) => m.getText('s')],
      ['getJson', (m: WorkingMemory) => m.getJson('s')],
      ['ring', (m: WorkingMemory) => m.ring('r')],
      ['ringText', (m: WorkingMemory) => m.ringText('r')],
    ])('makes a %s hit most recently used, stamps it and marks memory dirty', (_name, read) => {
      const blob: MemoryBlobDoc = {
        entries: [
          { key: 's', value: encodeScalar(utf8('1')), lastAccessMs: 10 },
          { key: 'r', value: encodeRing([utf8('x')]), lastAccessMs: 20 },
          { key: 'z', value: encodeScalar(utf8('2')), lastAccessMs: 30 },
        ],
        totalBytes: 0,
      };
      const memory = WorkingMemory.fromBlob(blob, { nowMs: 99 });
      read(memory);
      const touched = memory.keys().at(-1) ?? '';
      expect(['s', 'r']).toContain(touched);
      expect(stamps(memory)[touched]).toBe(99);
      expect(memory.dirty).toBe(true);
    });

    it('never re-stamps or dirties on keys, has, sizeBytes, entrySizeBytes or a miss, and they reflect staged changes', () => {
      const blob: MemoryBlobDoc = {
        entries: [
          { key: 'a', value: encodeScalar(utf8('1')), lastAccessMs: 10 },
          { key: 'b', value: encodeRing([utf8('x')]), lastAccessMs: 20 },
        ],
        totalBytes: 0,
      };
      const memory = WorkingMemory.fromBlob(blob, { nowMs: 99 });
      expect(memory.keys()).toEqual(['a', 'b']);
      expect(memory.has('a')).toBe(true);
      expect(memory.sizeBytes).toBe(1 + 2 + 1 + 6);
      expect(memory.entrySizeBytes('b')).toBe(1 + 6);
      expect(memory.entrySizeBytes('nope')).toBeUndefined();
      expect(memory.get('nope')).toBeUndefined();
      expect(memory.ring('nope')).toEqual([]);
      memory.delete('nope');
      expect(memory.dirty).toBe(false);
      expect(memory.toBlob().entries).toEqual(blob.entries);

      const staging = fresh();
      staging.set('x', 'abc');
      staging.append('y', 'd');
      expect(staging.keys()).toEqual(['x', 'y']);
      expect(staging.entrySizeBytes('x')).toBe(1 + 4);
      staging.delete('x');
      expect(staging.keys()).toEqual(['y']);
      expect(staging.has('x')).toBe(false);
    });
  });

  describe('rings (L03)', () => {
    it('keeps appends in order across a save and load', () => {
      const memory = fresh();
      for (const item of ['one', 'two', 'three']) memory.append('log', item);
      const reloaded = reload(memory, T0 + 1);
      expect(reloaded.ringText('log')).toEqual(['one', 'two', 'three']);
      reloaded.append('log', bytes(0xff));
      expect(reloaded.ring('log')).toEqual([utf8('one'), utf8('two'), utf8('three'), bytes(0xff)]);
    });

    it('drops the oldest ring item at maxItems and keeps the size constant', () => {
      const memory = fresh();
      for (const item of ['a1', 'a2', 'a3']) memory.append('r', item, { maxItems: 3 });
      const full = memory.sizeBytes;
      memory.append('r', 'a4', { maxItems: 3 });
      expect(memory.ringText('r')).toEqual(['a2', 'a3', 'a4']);
      expect(memory.sizeBytes).toBe(full);
    });

    it('bounds a ring at 64 items when no maxItems is given', () => {
      const memory = fresh();
      for (let i = 0; i < DEFAULT_RING_MAX_ITEMS + 6; i++) memory.append('r', String(i));
      const items = memory.ringText('r');
      expect(items).toHaveLength(DEFAULT_RING_MAX_ITEMS);
      expect(items[0]).toBe('6');
      expect(items.at(-1)).toBe(String(DEFAULT_RING_MAX_ITEMS + 5));
    });

    it('trims a ring to a smaller maxItems on the next append', () => {
      const memory = fresh();
      for (const item of ['1', '2', '3', '4', '5']) memory.append('r', item);
      memory.append('r', '6', { maxItems: 2 });
      expect(memory.ringText('r')).toEqual(['5', '6']);
      memory.append('r', '7', { maxItems: 1 });
      expect(memory.ringText('r')).toEqual(['7']);
    });

    it('reads an absent ring as empty', () => {
      expect(fresh().ring('none')).toEqual([]);
      expect(fresh().ringText('none')).toEqual([]);
    });

    it('accepts empty items', () => {
      const memory = fresh();
      memory.append('r', '');
      memory.append('r', new Uint8Array(0));
      expect(memory.ring('r')).toEqual([new Uint8Array(0), new Uint8Array(0)]);
      expect(memory.sizeBytes).toBe(1 + 1 + 4 + 4);
    });

    it('counts ring framing: one kind-tag byte plus four length bytes per item', () => {
      const memory = fresh();
      memory.append('ring', 'abc');
      memory.append('ring', 'de');
      expect(memory.toBlob().entries[0]?.value.length).toBe(1 + (4 + 3) + (4 + 2));
      expect(memory.entrySizeBytes('ring')).toBe('ring'.length + 1 + (4 + 3) + (4 + 2));
      expect(memory.sizeBytes).toBe(memory.entrySizeBytes('ring'));
    });

    it('refuses to append to a scalar with a MemoryKindError and leaves the value intact', () => {
      const memory = WorkingMemory.fromBlob({ entries: [{ key: 's', value: encodeScalar(utf8('keep')), lastAccessMs: 1 }], totalBytes: 5 }, { nowMs: T0 });
      expect(() => memory.append('s', 'x')).toThrow(MemoryKindError);
      expect(memory.dirty).toBe(false);
      expect(memory.getText('s')).toBe('keep');
    });

    it.each([
      ['get', (m: WorkingMemory) => m.get('r')],
      ['getText', (m: WorkingMemory) => m.getText('r')],
      ['getJson', (m: WorkingMemory) => m.getJson('r')],
    ])('refuses %s on a ring with a MemoryKindError, touching nothing', (_name, read) => {
      const blob: MemoryBlobDoc = { entries: [{ key: 'r', value: encodeRing([utf8('x')]), lastAccessMs: 1 }], totalBytes: 7 };
      const memory = WorkingMemory.fromBlob(blob, { nowMs: T0 });
      expect(() => read(memory)).toThrow(MemoryKindError);
      expect(memory.dirty).toBe(false);
      expect(memory.toBlob().entries).toEqual(blob.entries);
    });

    it('refuses ring reads of a scalar with a MemoryKindError naming the key', () => {
      const memory = fresh();
      memory.set('s', 'v');
      expect(() => memory.ring('s')).toThrow(MemoryKindError);
      expect(() => memory.ringText('s')).toThrow(/"s" holds a scalar/);
      try {
        memory.ring('s');
      } catch (error) {
        expect(error).toBeInstanceOf(TerminalError);
        expect((error as MemoryKindError).key).toBe('s');
      }
    });

    it('lets set overwrite a ring with a scalar', () => {
      const memory = fresh();
      memory.append('k', 'item');
      memory.set('k', 'scalar');
      expect(memory.getText('k')).toBe('scalar');
      expect(memory.sizeBytes).toBe(1 + 1 + 6);
    });

    it('raises a clear MemoryKindError for corrupt ring bytes, and still lets set replace them', () => {
      const corrupt = bytes(0x01, 0, 0, 0, 9, 0x61);
      const memory = WorkingMemory.fromBlob({ entries: [{ key: 'bad', value: corrupt, lastAccessMs: 1 }], totalBytes: 9 }, { nowMs: T0 });
      expect(memory.has('bad')).toBe(true);
      expect(() => memory.ring('bad')).toThrow(/corrupt ring/);
      expect(() => memory.append('bad', 'x')).toThrow(MemoryKindError);
      expect(() => memory.get('bad')).toThrow(MemoryKindError);
      expect(memory.dirty).toBe(false);
      expect(memory.toBlob().entries[0]?.value).toBe(corrupt);
      memory.set('bad', 'fixed');
      expect(memory.getText('bad')).toBe('fixed');
    });

    it.each([0, -1, 1.5, Number.NaN, Number.POSITIVE_INFINITY])('refuses maxItems %s with a TypeError naming it, staging nothing', (maxItems) => {
      const memory = fresh();
      expect(() => memory.append('r', 'x', { maxItems })).toThrow(TypeError);
      expect(() => memory.append('r', 'x', { maxItems })).toThrow(/maxItems/);
      expect(memory.has('r')).toBe(false);
      expect(memory.dirty).toBe(false);
    });
  });

  describe('accounting (L04)', () => {
    it('counts the UTF-8 bytes of the key, not its UTF-16 length', () => {
      const memory = fresh();
      memory.set('ключ', 'é');
      expect(memory.entrySizeBytes('ключ')).toBe(8 + 1 + 2);
    });

    it('recomputes the size of a loaded blob instead of trusting its stored total', () => {
      const memory = WorkingMemory.fromBlob({ entries: [{ key: 'ab', value: encodeScalar(utf8('xyz')), lastAccessMs: 1 }], totalBytes: 12345 }, { nowMs: T0 });
      expect(memory.sizeBytes).toBe(2 + 4);
      expect(memory.toBlob().totalBytes).toBe(6);
    });

    it('keeps the later entry when a loaded blob repeats a key, and counts it once', () => {
      const memory = WorkingMemory.fromBlob(
        {
          entries: [
            { key: 'a', value: encodeScalar(utf8('old')), lastAccessMs: 1 },
            { key: 'b', value: encodeScalar(utf8('b')), lastAccessMs: 2 },
            { key: 'a', value: encodeScalar(utf8('new')), lastAccessMs: 3 },
          ],
          totalBytes: 0,
        },
        { nowMs: T0 },
      );
      expect(memory.keys()).toEqual(['b', 'a']);
      expect(memory.getText('a')).toBe('new');
      expect(memory.sizeBytes).toBe(3 + 5);
    });

    it('tracks the exact size under any mix of operations, equal to a recomputation and to the stored total, never above the hard cap', () => {
      const key = fc.constantFrom('a', 'b', 'c', 'ключ', '🔑');
      const value = fc.oneof(fc.uint8Array({ maxLength: 48 }), fc.string({ maxLength: 16, unit: 'grapheme' }));
      const op = fc.oneof(
        fc.record({ kind: fc.constant('set' as const), key, value }),
        fc.record({ kind: fc.constant('setJson' as const), key, value: fc.jsonValue({ maxDepth: 2 }) }),
        fc.record({ kind: fc.constant('append' as const), key, value, maxItems: fc.integer({ min: 1, max: 5 }) }),
        fc.record({ kind: fc.constant('delete' as const), key }),
        fc.record({ kind: fc.constant('get' as const), key }),
        fc.record({ kind: fc.constant('ring' as const), key }),
        fc.record({ kind: fc.constant('reload' as const), nowMs: fc.integer({ min: 0, max: 10_000 }) }),
      );
      fc.assert(
        fc.property(fc.array(op, { maxLength: 60 }), fc.integer({ min: 20, max: 400 }), (ops, hardCapBytes) => {
          let memory = WorkingMemory.fromBlob(undefined, { nowMs: 0, hardCapBytes });
          for (const step of ops) {
            const before = memory.toBlob();
            const dirtyBefore = memory.dirty;
            try {
              switch (step.kind) {
                case 'set':
                  memory.set(step.key, step.value);
                  break;
                case 'setJson':
                  memory.setJson(step.key, step.value as never);
                  break;
                case 'append':
                  memory.append(step.key, step.value, { maxItems: step.maxItems });
                  break;
                case 'delete':
                  memory.delete(step.key);
                  break;
                case 'get':
                  memory.get(step.key);
                  break;
                case 'ring':
                  memory.ring(step.key);
                  break;
                case 'reload':
                  memory = WorkingMemory.fromBlob(memory.toBlob(), { nowMs: step.nowMs, hardCapBytes });
                  expect(memory.toBlob().entries).toEqual(before.entries);
                  break;
              }
            } catch (error) {
              if (!(error instanceof MemoryOverflow || error instanceof MemoryKindError)) throw error;
              if (error instanceof MemoryOverflow) {
                expect(error.attemptedBytes).toBeGreaterThan(hardCapBytes);
                expect(error.capBytes).toBe(hardCapBytes);
              }
              // A refused operation stages nothing.
              expect(memory.toBlob()).toEqual(before);
              expect(memory.dirty).toBe(dirtyBefore);
            }
            const blob = memory.toBlob();
            expect(memory.sizeBytes).toBe(recomputed(blob));
            expect(blob.totalBytes).toBe(memory.sizeBytes);
            expect(memory.sizeBytes).toBeLessThanOrEqual(hardCapBytes);
            expect(memory.keys().reduce((sum, k) => sum + (memory.entrySizeBytes(k) ?? 0), 0)).toBe(memory.sizeBytes);
          }
        }),
        { numRuns: 300 },
      );
    });
  });

  describe('staging (L05)', () => {
    it('saves identical entries when loaded and saved with no access', () => {
      const blob: MemoryBlobDoc = {
        entries: [
          { key: 'z', value: encodeScalar(utf8('last')), lastAccessMs: 7 },
          { key: 'a', value: encodeRing([utf8('1'), utf8('2')]), lastAccessMs: 3 },
          { key: 'odd', value: bytes(0x07, 1), lastAccessMs: 0 },
        ],
        totalBytes: 0,
      };
      const memory = WorkingMemory.fromBlob(blob, { nowMs: T0 });
      expect(memory.toBlob().entries).toEqual(blob.entries);
      expect(memory.dirty).toBe(false);
    });

    it('gives a fresh facade an empty blob', () => {
      const memory = fresh();
      expect(memory.toBlob()).toEqual({ entries: [], totalBytes: 0 });
      expect(memory.sizeBytes).toBe(0);
      expect(memory.keys()).toEqual([]);
      expect(memory.dirty).toBe(false);
    });

    it('flips dirty on the first mutation and keeps it', () => {
      const memory = fresh();
      memory.set('a', 'x');
      expect(memory.dirty).toBe(true);
      memory.delete('a');
      expect(memory.dirty).toBe(true);

      const deleting = WorkingMemory.fromBlob({ entries: [{ key: 'a', value: encodeScalar(bytes()), lastAccessMs: 1 }], totalBytes: 2 }, { nowMs: T0 });
      deleting.delete('a');
      expect(deleting.dirty).toBe(true);
    });

    it('lets reads see staged writes before anything is committed', () => {
      const memory = fresh();
      memory.set('a', 'staged');
      memory.append('r', 'one');
      expect(memory.getText('a')).toBe('staged');
      expect(memory.ringText('r')).toEqual(['one']);
    });

    it('leaves the loaded blob untouched while staging', () => {
      const blob: MemoryBlobDoc = { entries: [{ key: 'a', value: encodeScalar(utf8('1')), lastAccessMs: 1 }], totalBytes: 2 };
      const memory = WorkingMemory.fromBlob(blob, { nowMs: T0 });
      memory.set('a', '2');
      memory.set('b', '3');
      expect(blob).toEqual({ entries: [{ key: 'a', value: encodeScalar(utf8('1')), lastAccessMs: 1 }], totalBytes: 2 });
    });
  });

  describe('soft cap (L06)', () => {
    it('reports crossing 75 % of 1 MiB once and still applies the write', () => {
      const onSoftCap = vi.fn();
      const memory = WorkingMemory.fromBlob(undefined, { nowMs: T0, onSoftCap });
      memory.set('k', new Uint8Array(MEMORY_SOFT_CAP_BYTES - 3));
      expect(memory.sizeBytes).toBe(MEMORY_SOFT_CAP_BYTES - 1);
      expect(onSoftCap).not.toHaveBeenCalled();
      expect(memory.softCapCrossed).toBe(false);

      memory.set('k', new Uint8Array(MEMORY_SOFT_CAP_BYTES - 2));
      expect(memory.sizeBytes).toBe(MEMORY_SOFT_CAP_BYTES);
      expect(onSoftCap).toHaveBeenCalledTimes(1);
      expect(memory.softCapCrossed).toBe(true);

      memory.append('more', 'x');
      memory.delete('more');
      memory.append('more', 'y');
      expect(onSoftCap).toHaveBeenCalledTimes(1);
      expect(memory.ringText('more')).toEqual(['y']);
    });

    it('is fine without an onSoftCap callback', () => {
      const memory = fresh();
      memory.set('k', new Uint8Array(MEMORY_SOFT_CAP_BYTES));
      expect(memory.softCapCrossed).toBe(true);
      expect(memory.has('k')).toBe(true);
    });

    it('reports once per facade: the next activation over a blob above the soft cap reports on its first write, not on load', () => {
      const first = fresh();
      first.set('k', new Uint8Array(MEMORY_SOFT_CAP_BYTES));
      const onSoftCap = vi.fn();
      const next = WorkingMemory.fromBlob(first.toBlob(), { nowMs: T0 + 1, onSoftCap });
      next.get('k');
      expect(onSoftCap).not.toHaveBeenCalled();
      next.set('small', 'x');
      expect(onSoftCap).toHaveBeenCalledTimes(1);
    });

    it('defaults the soft cap to 75 % of a configured hard cap', () => {
      const onSoftCap = vi.fn();
      const memory = WorkingMemory.fromBlob(undefined, { nowMs: T0, hardCapBytes: 100, onSoftCap });
      memory.set('k', new Uint8Array(72));
      expect(onSoftCap).not.toHaveBeenCalled();
      memory.set('k', new Uint8Array(73));
      expect(memory.sizeBytes).toBe(75);
      expect(onSoftCap).toHaveBeenCalledTimes(1);
    });

    it('does not call a throwing onSoftCap twice, and the write that crossed stays staged', () => {
      const onSoftCap = vi.fn(() => {
        throw new Error('observer failed');
      });
      const memory = WorkingMemory.fromBlob(undefined, { nowMs: T0, hardCapBytes: 100, softCapBytes: 10, onSoftCap });
      expect(() => memory.set('k', new Uint8Array(10))).toThrow('observer failed');
      expect(memory.has('k')).toBe(true);
      memory.set('j', 'x');
      expect(onSoftCap).toHaveBeenCalledTimes(1);
    });
  });

  describe('hard cap (L07)', () => {
    it('accepts a write that fills memory to exactly 1 MiB', () => {
      const memory = fresh();
      memory.set('k', new Uint8Array(MEMORY_HARD_CAP_BYTES - 2));
      expect(memory.sizeBytes).toBe(MEMORY_HARD_CAP_BYTES);
    });

    it('refuses a write one byte over 1 MiB with MemoryOverflow(key, attempted, cap) and stages nothing', () => {
      const memory = fresh();
      memory.set('a', new Uint8Array(1000));
      memory.append('r', 'x');
      const before = memory.toBlob();
      // 'big' costs 3 key bytes plus the kind tag on top of its payload.
      const payloadRoom = MEMORY_HARD_CAP_BYTES - memory.sizeBytes - 3 - 1;
      let thrown: unknown;
      try {
        memory.set('big', new Uint8Array(payloadRoom + 1));
      } catch (error) {
        thrown = error;
      }
      expect(thrown).toBeInstanceOf(MemoryOverflow);
      expect(thrown).toBeInstanceOf(TerminalError);
      expect(thrown).toMatchObject({ name: 'MemoryOverflow', key: 'big', attemptedBytes: MEMORY_HARD_CAP_BYTES + 1, capBytes: MEMORY_HARD_CAP_BYTES });
      expect(memory.toBlob()).toEqual(before);
      expect(memory.has('big')).toBe(false);
      memory.set('big', new Uint8Array(payloadRoom));
      expect(memory.sizeBytes).toBe(MEMORY_HARD_CAP_BYTES);
    });

    it('refuses an append past the cap and leaves the ring as it was', () => {
      const memory = WorkingMemory.fromBlob(undefined, { nowMs: T0, hardCapBytes: 30 });
      memory.append('r', 'abcdef');
      const before = memory.toBlob();
      expect(() => memory.append('r', 'ghijklmnopqrstuvw')).toThrow(MemoryOverflow);
      expect(memory.toBlob()).toEqual(before);
      expect(memory.ringText('r')).toEqual(['abcdef']);
    });

    it('counts the replaced value out when an overwrite is checked against the cap', () => {
      const memory = WorkingMemory.fromBlob(undefined, { nowMs: T0, hardCapBytes: 20 });
      memory.set('k', new Uint8Array(18));
      memory.set('k', new Uint8Array(18));
      expect(memory.sizeBytes).toBe(20);
      memory.delete('k');
      memory.append('k', new Uint8Array(10));
      memory.append('k', new Uint8Array(10), { maxItems: 1 });
      expect(memory.sizeBytes).toBe(1 + 1 + 4 + 10);
    });

    it('lets an agent catch the overflow, delete something and write again', () => {
      const memory = WorkingMemory.fromBlob(undefined, { nowMs: T0, hardCapBytes: 40 });
      memory.set('old', new Uint8Array(30));
      expect(() => memory.set('new', new Uint8Array(10))).toThrow(MemoryOverflow);
      memory.delete('old');
      memory.set('new', new Uint8Array(10));
      expect(memory.keys()).toEqual(['new']);
    });
  });

  describe('argument checks', () => {
    it.each([
      ['get', (m: WorkingMemory) => m.get('')],
      ['set', (m: WorkingMemory) => m.set('', 'x')],
      ['setJson', (m: WorkingMemory) => m.setJson('', 1)],
      ['append', (m: WorkingMemory) => m.append('', 'x')],
      ['delete', (m: WorkingMemory) => m.delete('')],
      ['has', (m: WorkingMemory) => m.has('')],
      ['ring', (m: WorkingMemory) => m.ring('')],
    ])('refuses an empty key in %s with a TypeError', (_name, call) => {
      const memory = fresh();
      expect(() => call(memory)).toThrow(TypeError);
      expect(memory.dirty).toBe(false);
    });

    it('refuses a key with a lone surrogate, which could not survive the protobuf round trip', () => {
      expect(() => fresh().set('bad\uD800', 'x')).toThrow(/well-formed/);
      expect(() => fresh().set('ok\uD83D\uDE00', 'x')).not.toThrow();
    });

    it('refuses a value that is neither bytes nor a string', () => {
      expect(() => fresh().set('k', 42 as never)).toThrow(TypeError);
      expect(() => fresh().append('k', null as never)).toThrow(TypeError);
    });

    it.each([
      [{ nowMs: 1.5 }, /nowMs/],
      [{ nowMs: 0, hardCapBytes: 0 }, /hardCapBytes/],
      [{ nowMs: 0, softCapBytes: -1 }, /softCapBytes/],
      [{ nowMs: 0, hardCapBytes: 10, softCapBytes: 11 }, /must not exceed/],
    ])('refuses invalid options %o', (options, message) => {
      expect(() => WorkingMemory.fromBlob(undefined, options)).toThrow(message);
    });
  });
});
