// Layer 3: snapshot export and offline replay against a real deployment. A refund key runs through
// an approval and a tool round trip on real services; `nats-agents snapshot` copies it out of
// NATS, and `nats-agents replay` re-runs it with no NATS: the same module reproduces every element,
// a changed module is caught at the element that changed, and a redacted snapshot keeps no raw key.
// A hello key calls the model in every activation and completes: its answers come back from the
// replay journal (decision 0073), so it replays with no --model-script, a changed module diverges at
// its element, and the same snapshot without its journal (format version 1) is irreproducible.
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeJournalPayload, decodeKeySnapshot, decodeToolIntent, encodeKeySnapshot } from '#core';
import { entityDigest, keyFromText } from '#routing';
import { REPO_ROOT, startCluster, type TestCluster } from '../harness/index.js';

const run = promisify(execFile);

interface Ran {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

describe('nats-agents snapshot and replay', () => {
  let cluster: TestCluster;
  let dir: string;
  const cli = (...args: string[]): Promise<Ran> =>
    run(process.execPath, [`${REPO_ROOT}/bin/nats-agents.mjs`, ...args], { env: { ...process.env, NATS_URL: cluster.server.url, AGENTS_PARTITIONS: '4' }, timeout: 60_000, cwd: REPO_ROOT }).then(
      ({ stdout, stderr }) => ({ code: 0, stdout, stderr }),
      (error: { code: number; stdout: string; stderr: string }) => ({ code: error.code, stdout: error.stdout, stderr: error.stderr }),
    );
  const json = (line: string): Record<string, unknown> => JSON.parse(line) as Record<string, unknown>;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'snapshot-replay-'));
    cluster = await startCluster({
      agentModules: ['dist/examples/refund/refund.agent.js', 'dist/examples/hello/hello.agent.js'],
      modelScript: 'dist/examples/models/demo-model.js',
      services: ['activator', 'ingress', 'effector'],
      env: { AGENTS_TOOL_MODULES: 'dist/examples/refund/refund.tool.js' },
    });
    // A key through an approval and a tool round trip: event → approval request → approved →
    // refund intent → effector → tool result → output.
    await cluster.client.publishEvent('refund', 'order-42', { orderId: 'o-42', amount: 400, reason: 'damaged' });
    const request = json((await cli('tail', 'approval-requests', '--all', '--json', '--agent', 'refund', '--count', '1')).stdout.trim());
    expect(request).toMatchObject({ key: 'order-42', tool: 'approval' });
    expect((await cli('approve', 'refund', 'order-42', request.intentId as string, '--approver', 'ada')).code).toBe(0);
    const output = json((await cli('tail', 'outputs', '--all', '--json', '--agent', 'refund', '--key', 'order-42', '--count', '1')).stdout.trim());
    expect(json(output.output as string)).toMatchObject({ status: 'refunded', orderId: 'o-42' });
    // A model-calling key: two activations, each asking the model once and completing.
    await cluster.client.publishEvent('hello', 'ada', { name: 'Ada' });
    await cluster.client.publishEvent('hello', 'ada', { name: 'Ada' });
    const greetings = (await cli('tail', 'outputs', '--all', '--json', '--agent', 'hello', '--key', 'ada', '--count', '2')).stdout.trim().split('\n').map(json);
    expect(greetings.map((g) => json(g.output as string))).toMatchObject([{ visits: 1 }, { visits: 2 }]);
  });
  afterAll(async () => {
    await cluster?.stop();
    if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
  });

  it('exports every recorded part of the key into one versioned file', async () => {
    const file = join(dir, 'order-42.json');
    const exported = await cli('snapshot', 'refund', 'order-42', '--out', file);
    expect(exported.code).toBe(0);
    const snapshot = decodeKeySnapshot(Uint8Array.from(readFileSync(file)));
    expect(snapshot).toMatchObject({ version: 2, agent: 'refund', redacted: false, source: { prefix: 'agents', partitions: 4 }, journal: [] });
    expect(new TextDecoder().decode(snapshot.key.data)).toBe('order-42');
    expect(snapshot.key.sha256).toMatch(/^[0-9a-f]{64}$/);
    expect(snapshot.inbox.map((m) => [m.subject.split('.').at(-1), m.applied])).toEqual([
      ['event', true],
      ['approval', true],
      ['result', true],
    ]);
    expect(snapshot.outputs).toHaveLength(1);
    const intents = snapshot.intents.map((m) => decodeToolIntent(m.data.data!).toolName);
    expect(intents).toEqual(['approval', 'refund']);
    expect(snapshot.effects.map((e) => e.intentId)).toEqual([decodeToolIntent(snapshot.intents[1]!.data.data!).intentId]);
    expect(snapshot.state?.document.bytes).toBeGreaterThan(0);
  });

  it('replays the snapshot with the same module: every element reproduced, exit 0', async () => {
    const file = join(dir, 'order-42.json');
    const replay = await cli('replay', file, '--modules', 'dist/examples/refund/refund.agent.js', '--print-state');
    expect(replay.stderr).toBe('');
    expect(replay.code).toBe(0);
    expect(replay.stdout).toMatch(/^element 1: inbox seq \d+ event at \d+ -> suspended, 1 published, same$/m);
    expect(replay.stdout).toMatch(/^element 2: inbox seq \d+ approval at \d+ -> suspended, 1 published, same$/m);
    expect(replay.stdout).toMatch(/^element 3: inbox seq \d+ result at \d+ -> completed, 1 published, same$/m);
    expect(replay.stdout).toMatch(/^reproduced: 3 elements replayed with no divergence$/m);
    // --print-state: the state after the approval names the refund intent it waits for.
    expect(replay.stdout).toContain('"tool": "refund"');
  });

  it('reports a changed module at the element that changed and exits 3', async () => {
    const changed = join(dir, 'refund-v2.agent.mjs');
    writeFileSync(
      changed,
      `import refund from ${JSON.stringify(join(REPO_ROOT, 'dist/examples/refund/refund.agent.js'))};
export default { ...refund, async handler(ctx) {
  const outcome = await refund.handler(ctx);
  return outcome.kind === 'complete' ? { kind: 'complete', output: { ...outcome.output, status: 'refunded-v2' } } : outcome;
} };
`,
    );
    const replay = await cli('replay', join(dir, 'order-42.json'), '--modules', changed, '--json');
    expect(replay.code).toBe(3);
    const lines = replay.stdout.trim().split('\n').map(json);
    const steps = lines.filter((l) => l.step !== undefined).map((l) => l.step as { element: number; divergences: unknown[] });
    expect(steps.map((s) => s.divergences.length)).toEqual([0, 0, 1]);
    const report = lines.at(-1)!.report as { outcome: string; divergences: { element: number; what: string; problem: string; recorded: string; replayed: string }[] };
    expect(report.outcome).toBe('diverged');
    expect(report.divergences).toHaveLength(1);
    expect(report.divergences[0]).toMatchObject({ element: 3, what: 'output', problem: 'different' });
    expect(json(report.divergences[0]!.recorded)).toMatchObject({ status: 'refunded' });
    expect(json(report.divergences[0]!.replayed)).toMatchObject({ status: 'refunded-v2' });
  });

  it('exports the replay journal of a model-calling key: one message per completed activation, keyed by digest', async () => {
    const file = join(dir, 'ada.json');
    const exported = await cli('snapshot', 'hello', 'ada', '--out', file);
    expect(exported.code).toBe(0);
    expect(exported.stderr).toMatch(/2 journaled activations/);
    const snapshot = decodeKeySnapshot(Uint8Array.from(readFileSync(file)));
    expect(snapshot.inbox.map((m) => m.applied)).toEqual([true, true]);
    expect(snapshot.journal.map((m) => m.subject)).toEqual([0, 1].map(() => `agents.journal.hello.${entityDigest(keyFromText('ada'))}`));
    expect(snapshot.journal.map((m) => m.headers.find((h) => h.name === 'Agents-Seq')?.value)).toEqual(['0', '1']);
    const responses = snapshot.journal.map((m) => decodeJournalPayload(m.data.data!).entries.map((e) => new TextDecoder().decode(e.response)));
    expect(responses.flat().every((r) => r.includes('Hello, Ada! Nice to see you.'))).toBe(true);
    // The committed state no longer holds them (decision 0016): the journal is where they are.
    expect(snapshot.state?.document.bytes).toBeGreaterThan(0);
  });

  it('replays finished model-calling activations from the journal with no --model-script: exit 0', async () => {
    const replay = await cli('replay', join(dir, 'ada.json'), '--modules', 'dist/examples/hello/hello.agent.js');
    expect(replay.stderr).toBe('');
    expect(replay.code).toBe(0);
    expect(replay.stdout).toMatch(/^element 1: inbox seq \d+ event at \d+ -> completed, 1 published, same$/m);
    expect(replay.stdout).toMatch(/^element 2: inbox seq \d+ event at \d+ -> completed, 1 published, same$/m);
    expect(replay.stdout).toMatch(/^reproduced: 2 elements replayed with no divergence$/m);
  });

  it('reports a changed model-calling module at the element that changed and exits 3', async () => {
    const changed = join(dir, 'hello-v2.agent.mjs');
    writeFileSync(
      changed,
      `import hello from ${JSON.stringify(join(REPO_ROOT, 'dist/examples/hello/hello.agent.js'))};
export default { ...hello, async handler(ctx) {
  const outcome = await hello.handler(ctx);
  return outcome.output.visits === 2 ? { ...outcome, output: { ...outcome.output, greeting: outcome.output.greeting.toUpperCase() } } : outcome;
} };
`,
    );
    const replay = await cli('replay', join(dir, 'ada.json'), '--modules', changed, '--json');
    expect(replay.code).toBe(3);
    const lines = replay.stdout.trim().split('\n').map(json);
    const steps = lines.filter((l) => l.step !== undefined).map((l) => l.step as { element: number; divergences: unknown[] });
    expect(steps.map((s) => s.divergences.length)).toEqual([0, 1]);
    const report = lines.at(-1)!.report as { outcome: string; divergences: { element: number; what: string; problem: string; recorded: string; replayed: string }[] };
    expect(report).toMatchObject({ outcome: 'diverged', divergences: [{ element: 2, what: 'output', problem: 'different' }] });
    expect(json(report.divergences[0]!.recorded)).toMatchObject({ greeting: 'Hello, Ada! Nice to see you.', visits: 2 });
    expect(json(report.divergences[0]!.replayed)).toMatchObject({ greeting: 'HELLO, ADA! NICE TO SEE YOU.', visits: 2 });
  });

  it('calls the same key irreproducible without its journal (a version 1 snapshot), naming the completed activation', async () => {
    const withJournal = decodeKeySnapshot(Uint8Array.from(readFileSync(join(dir, 'ada.json'))));
    const file = join(dir, 'ada.v1.json');
    writeFileSync(file, encodeKeySnapshot({ ...withJournal, version: 1, journal: [] }));
    expect(readFileSync(file, 'utf8')).not.toContain('"journal"');
    const replay = await cli('replay', file, '--modules', 'dist/examples/hello/hello.agent.js', '--json');
    expect(replay.code).toBe(4);
    const report = json(replay.stdout.trim().split('\n').at(-1)!).report as { outcome: string; element: number; misses: { why: string; seqHint: number }[] };
    expect(report).toMatchObject({ outcome: 'irreproducible', element: 1, misses: [{ why: 'completed', seqHint: 0 }] });
    const text = await cli('replay', file, '--modules', 'dist/examples/hello/hello.agent.js');
    expect(text.stdout).toMatch(/holds no replay journal of it/);
    expect(text.stdout).toMatch(/--model-script/);
    // The scripted model answers what the journal would have.
    const scripted = await cli('replay', file, '--modules', 'dist/examples/hello/hello.agent.js', '--model-script', 'dist/examples/models/demo-model.js');
    expect(scripted.code).toBe(0);
  });

  it('writes a redacted snapshot without the raw key or payloads, which replay refuses', async () => {
    const file = join(dir, 'order-42.redacted.json');
    expect((await cli('snapshot', 'refund', 'order-42', '--redact', '--out', file)).code).toBe(0);
    const text = readFileSync(file, 'utf8');
    expect(text).not.toContain('order-42');
    expect(text).not.toContain('base64');
    expect(decodeKeySnapshot(new TextEncoder().encode(text))).toMatchObject({ redacted: true, inbox: [{ applied: true }, { applied: true }, { applied: true }] });
    const replay = await cli('replay', file, '--modules', 'dist/examples/refund/refund.agent.js');
    expect(replay.code).toBe(1);
    expect(replay.stderr).toMatch(/redacted snapshot cannot be replayed/);
  });
});
