import { describe, expect, it } from 'vitest';
import { SlotMap } from './slot-map.js';

describe('SlotMap', () => {
  it('answers what was set, and nothing after a delete', () => {
    const map = new SlotMap<string, { n: number }>();
    const value = { n: 1 };
    map.set('a', value);
    expect(map.get('a')).toBe(value);
    expect(map.delete('a')).toBe(true);
    expect(map.get('a')).toBeUndefined();
    expect(map.delete('a')).toBe(false);
    expect(map.size).toBe(0);
  });

  it('overwrites a key in place, keeping its place in iteration order', () => {
    const map = new SlotMap<string, number>();
    map.set('a', 1);
    map.set('b', 2);
    map.set('a', 3);
    expect([...map.keys()]).toEqual(['a', 'b']);
    expect(map.get('a')).toBe(3);
  });

  it('moves a touched key to the end, and touches nothing absent', () => {
    const map = new SlotMap<string, number>();
    map.set('a', 1);
    map.set('b', 2);
    expect(map.touch('a')).toBe(1);
    expect([...map.keys()]).toEqual(['b', 'a']);
    expect(map.get('a')).toBe(1);
    expect(map.touch('c')).toBeUndefined();
    expect([...map.keys()]).toEqual(['b', 'a']);
  });
});
