import { describe, expect, it } from 'vitest';
import { originOf, summarizeProfile } from './cpu-profile-summary.js';

describe('cpu profile summary', () => {
  it('attributes frames to their package, our lib or app, Node internals and the collector', () => {
    expect(originOf('file:///app/node_modules/@nats-io/nats-core/lib/protocol.js', 'processMsg')).toBe('@nats-io/nats-core');
    expect(originOf('file:///app/node_modules/uuid/dist/v5.js', 'v5')).toBe('uuid');
    expect(originOf('file:///app/dist/libs/core/src/actor/actor-runtime.js', 'process')).toBe('ours:libs/core');
    expect(originOf('node:internal/async_hooks', 'emitInit')).toBe('node:internal');
    expect(originOf('', '(garbage collector)')).toBe('gc');
  });

  it('sums self samples per function and origin, leaving idle out of the busy total', () => {
    const frame = (functionName: string, url: string) => ({ functionName, url, lineNumber: 0 });
    const summary = summarizeProfile({
      nodes: [
        { id: 1, callFrame: frame('(idle)', '') },
        { id: 2, callFrame: frame('(garbage collector)', '') },
        { id: 3, callFrame: frame('commit', 'file:///x/libs/transport/src/kv.js') },
      ],
      samples: [1, 1, 2, 3, 3, 3],
    });
    expect(summary).toMatchObject({ busySamples: 4, idleSamples: 2 });
    expect(summary.byOrigin).toEqual([
      { name: 'ours:libs/transport', samples: 3 },
      { name: 'gc', samples: 1 },
    ]);
  });
});
