// Layer 1: the commit path is composed once; with tracing off it carries no wrapper that only looks for a span, and it still counts what the metrics need.
import { describe, expect, it } from 'vitest';
import { InMemoryStateStore, type ActorRuntimeDeps, type ActorRuntimeObserver, type OutboxEntryDoc } from '#core';
import { RuntimeMetrics, TraceScopes } from '#telemetry';
import { composeCommitPath } from './commit-path.factory.js';
import { LeaseGuardedStateStore } from './lease-guarded-state-store.js';
import { TracedStateStore } from './telemetry/traced-state-store.js';
import { echoRuntimePorts } from './testing/traced-echo-runtime.js';
import { TracingObserver } from './telemetry/tracing-observer.js';

function ports(observer: ActorRuntimeObserver, published: OutboxEntryDoc[]): ActorRuntimeDeps {
  return { ...echoRuntimePorts(new InMemoryStateStore(), published), observer };
}

const intent: OutboxEntryDoc = { subject: 'agents.intents.a.charge', msgId: 'intent:1', payload: new Uint8Array(), headers: [{ name: 'Agents-Agent', value: 'a' }] };

describe('composeCommitPath', () => {
  it('with tracing off, keeps the lease-guarded store and the metrics observer unwrapped, and still counts published intents', async () => {
    const metrics = new RuntimeMetrics({ defaultMetrics: false });
    const observer: ActorRuntimeObserver = {};
    const published: OutboxEntryDoc[] = [];
    const path = composeCommitPath(ports(observer, published), { failpoints: [], holdsLease: () => true, metrics, prefix: 'agents', scopes: new TraceScopes(), tracing: false, steps: 'events' });
    expect(path.store).toBeInstanceOf(LeaseGuardedStateStore);
    expect(path.observer).toBe(observer);
    await path.publisher.publish([intent]);
    expect(published).toEqual([intent]);
    expect((await metrics.intentsPublished.get()).values).toEqual([expect.objectContaining({ labels: { agent: 'a' }, value: 1 })]);
  });

  it('with tracing on, wraps the store and the observer so spans find their activation', () => {
    const observer: ActorRuntimeObserver = {};
    const path = composeCommitPath(ports(observer, []), { failpoints: [], holdsLease: () => true, metrics: new RuntimeMetrics({ defaultMetrics: false }), prefix: 'agents', scopes: new TraceScopes(), tracing: true, steps: 'events' });
    expect(path.store).toBeInstanceOf(TracedStateStore);
    expect(path.observer).toBeInstanceOf(TracingObserver);
  });
});
