// Layer 1: the services' context manager keeps a context active for the synchronous extent of `with`
// only — restored on return and on throw, never following an await — and `bind` carries one into a
// later call (decision 0076).
import { EventEmitter } from 'node:events';
import { createContextKey, ROOT_CONTEXT } from '@opentelemetry/api';
import { describe, expect, it } from 'vitest';
import { SynchronousContextManager } from './synchronous-context-manager.js';

const KEY = createContextKey('test');
const outer = ROOT_CONTEXT.setValue(KEY, 'outer');
const inner = ROOT_CONTEXT.setValue(KEY, 'inner');

describe('SynchronousContextManager', () => {
  it('makes a context active inside with, nested scopes restoring the outer one', () => {
    const manager = new SynchronousContextManager();
    const seen = manager.with(outer, () => [manager.active().getValue(KEY), manager.with(inner, () => manager.active().getValue(KEY)), manager.active().getValue(KEY)]);
    expect(seen).toEqual(['outer', 'inner', 'outer']);
    expect(manager.active()).toBe(ROOT_CONTEXT);
  });

  it('restores the previous context when the function throws', () => {
    const manager = new SynchronousContextManager();
    expect(() =>
      manager.with(outer, () => {
        throw new Error('boom');
      }),
    ).toThrow('boom');
    expect(manager.active()).toBe(ROOT_CONTEXT);
  });

  it('does not follow an await: the scope ends when the function returns its promise', async () => {
    const manager = new SynchronousContextManager();
    const after = await manager.with(outer, async () => {
      await Promise.resolve();
      return manager.active().getValue(KEY);
    });
    expect(after).toBeUndefined();
  });

  it('passes this and arguments through', () => {
    const manager = new SynchronousContextManager();
    const target = { base: 2 };
    expect(manager.with(outer, function (this: typeof target, n: number) { return this.base + n; }, target, 3)).toBe(5);
  });

  it('binds a function and the listeners of an emitter to a context for later calls', () => {
    const manager = new SynchronousContextManager();
    const bound = manager.bind(outer, () => manager.active().getValue(KEY));
    expect(bound()).toBe('outer');
    const emitter = manager.bind(inner, new EventEmitter());
    const heard: unknown[] = [];
    emitter.on('tick', () => heard.push(manager.active().getValue(KEY)));
    emitter.emit('tick');
    expect(heard).toEqual(['inner']);
    expect(manager.active()).toBe(ROOT_CONTEXT);
  });
});
