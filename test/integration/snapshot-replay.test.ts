// Layer 3: snapshot export and offline replay against a real deployment. A refund key runs through
// an approval and a tool round trip on real services; `nats-agents snapshot` copies it out of
// NATS, and `nats-agents replay` re-runs it with no NATS: the same module reproduces every element,
// a changed module is caught at the element that changed, and a redacted snapshot keeps no raw key.
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeKeySnapshot, decodeToolIntent } from '#core';
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
      agentModules: ['dist/examples/refund/refund.agent.js'],
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
    expect(snapshot).toMatchObject({ version: 1, agent: 'refund', redacted: false, source: { prefix: 'agents', partitions: 4 } });
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
