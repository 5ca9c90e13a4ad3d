// Layer 3, replay of the LangGraph.js adapter: the triage graph runs on a real deployment
// (nats-server, ingress, the activator process with its scripted model) through a model call and a
// human approval, up to the refund intent it waits for. `nats-agents snapshot` copies the key out of
// NATS and `nats-agents replay` re-runs both elements offline: the graph's checkpoints (ids derived
// from the key's history, decision 0060) come out byte for byte, so the replay reports no divergence.
// A finished activation replays from the replay journal with no model script (decision 0073); with
// the journal off it is irreproducible, and its replay says what to do.
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { decodeActorDocument, decodeKeySnapshot, decodeToolIntent } from '#core';
import { CHECKPOINTS_MEMORY_KEY } from '#langgraph';
import { collect, REPO_ROOT, startCluster } from '../harness/index.js';

const run = promisify(execFile);

type Cluster = Awaited<ReturnType<typeof startCluster>>;
const cliOf =
  (cluster: Cluster) =>
  (...args: string[]) =>
    run(process.execPath, [`${REPO_ROOT}/bin/nats-agents.mjs`, ...args], { env: { ...process.env, NATS_URL: cluster.server.url, AGENTS_PARTITIONS: '4' }, timeout: 60_000, cwd: REPO_ROOT }).then(
      ({ stdout, stderr }) => ({ code: 0, stdout, stderr }),
      (error: { code: number; stdout: string; stderr: string }) => ({ code: error.code, stdout: error.stdout, stderr: error.stderr }),
    );

describe('replay of a LangGraph.js activation', () => {
  it('replays the triage graph through a model call and an approval with byte-identical checkpoints and no divergence', async () => {
    await using cluster = await startCluster({
      agentModules: ['dist/examples/langgraph-triage/triage.agent.js'],
      modelScript: 'dist/examples/langgraph-triage/triage-model.js',
      services: ['ingress', 'activator'],
    });
    const dir = mkdtempSync(join(tmpdir(), 'langgraph-replay-'));
    const cli = cliOf(cluster);
    try {
      const approvals = await collect(cluster.client.nc, 'agents.approval-requests.triage.>');
      const intents = await collect(cluster.client.nc, 'agents.intents.triage.refund');
      await cluster.client.publishEvent('triage', 'ticket-11', { ticket: 'order o-5 arrived broken, please refund 30' });
      const request = decodeToolIntent((await approvals.waitForCount(1))[0]!.data);
      await cluster.client.publishApproval('triage', 'ticket-11', { intentId: request.intentId, approved: true, approver: 'ada', reason: '', decidedAtMs: 1 });
      // No effector runs: the key stays suspended on the refund intent.
      expect(decodeToolIntent((await intents.waitForCount(1))[0]!.data).toolName).toBe('refund');
      approvals.close();
      intents.close();

      const file = join(dir, 'ticket-11.json');
      expect((await cli('snapshot', 'triage', 'ticket-11', '--out', file)).code).toBe(0);
      const snapshot = decodeKeySnapshot(Uint8Array.from(readFileSync(file)));
      expect(snapshot.inbox.map((m) => [m.subject.split('.').at(-1), m.applied])).toEqual([
        ['event', true],
        ['approval', true],
      ]);
      // The committed checkpoints carry derived ids, not LangGraph's clock-based ones.
      const committed = decodeActorDocument(snapshot.state!.document.data!);
      const checkpoints = new TextDecoder().decode(committed.memory.entries.find((e) => e.key === CHECKPOINTS_MEMORY_KEY)!.value.subarray(1));
      expect(Object.keys((JSON.parse(checkpoints) as { storage: Record<string, Record<string, object>> }).storage['7469636b65742d3131']!['']!)).toEqual([
        '00000000-0003-6000-8000-000000000000',
        '00000000-0004-6000-8000-000000000000',
      ]);

      const replay = await cli('replay', file, '--modules', 'dist/examples/langgraph-triage/triage.agent.js', '--json');
      expect(replay.stderr).toBe('');
      const lines = replay.stdout.trim().split('\n').map((l) => JSON.parse(l) as { step?: { divergences: unknown[] }; report?: { outcome: string; divergences?: unknown[] } });
      expect(lines.filter((l) => l.step !== undefined).map((l) => l.step!.divergences)).toEqual([[], []]);
      expect(lines.at(-1)!.report).toMatchObject({ outcome: 'reproduced' });
      expect(replay.code).toBe(0);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  /** Runs ticket `key` through its model call, approval and refund to its output, and snapshots it into `dir`. */
  async function finishedTriage(cluster: Cluster, dir: string, key: string): Promise<string> {
    const approvals = await collect(cluster.client.nc, 'agents.approval-requests.triage.>');
    const outputs = await collect(cluster.client.nc, 'agents.output.triage.>');
    await cluster.client.publishEvent('triage', key, { ticket: 'order o-6 arrived broken, please refund 20' });
    const request = decodeToolIntent((await approvals.waitForCount(1))[0]!.data);
    await cluster.client.publishApproval('triage', key, { intentId: request.intentId, approved: true, approver: 'ada', reason: '', decidedAtMs: 1 });
    await outputs.waitForCount(1);
    approvals.close();
    outputs.close();
    const file = join(dir, `${key}.json`);
    expect((await cliOf(cluster)('snapshot', 'triage', key, '--out', file)).code).toBe(0);
    return file;
  }

  it('replays a finished activation from the replay journal with no model script and no divergence', async () => {
    await using cluster = await startCluster({
      agentModules: ['dist/examples/langgraph-triage/triage.agent.js'],
      modelScript: 'dist/examples/langgraph-triage/triage-model.js',
      services: ['ingress', 'activator', 'effector'],
      env: { AGENTS_TOOL_MODULES: 'dist/examples/refund/refund.tool.js' },
    });
    const dir = mkdtempSync(join(tmpdir(), 'langgraph-replay-'));
    try {
      const file = await finishedTriage(cluster, dir, 'ticket-13');
      // The activation completed; its model responses left with its commit's journal message (decision 0073).
      expect(decodeKeySnapshot(Uint8Array.from(readFileSync(file))).journal).toHaveLength(1);
      const bare = await cliOf(cluster)('replay', file, '--modules', 'dist/examples/langgraph-triage/triage.agent.js');
      expect(bare.stderr).toBe('');
      expect(bare.stdout).toMatch(/^reproduced: 3 elements replayed with no divergence$/m);
      expect(bare.code).toBe(0);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('with the journal off, names a finished activation irreproducible with what to do, and replays it with no divergence given the model script', async () => {
    await using cluster = await startCluster({
      agentModules: ['dist/examples/langgraph-triage/triage.agent.js'],
      modelScript: 'dist/examples/langgraph-triage/triage-model.js',
      services: ['ingress', 'activator', 'effector'],
      env: { AGENTS_TOOL_MODULES: 'dist/examples/refund/refund.tool.js', AGENTS_REPLAY_JOURNAL: 'false' },
    });
    const dir = mkdtempSync(join(tmpdir(), 'langgraph-replay-'));
    const cli = cliOf(cluster);
    try {
      const file = await finishedTriage(cluster, dir, 'ticket-12');
      // No journal: the completed activation's model responses left the cluster with it (decision 0016).
      expect(decodeKeySnapshot(Uint8Array.from(readFileSync(file))).journal).toEqual([]);
      const bare = await cli('replay', file, '--modules', 'dist/examples/langgraph-triage/triage.agent.js');
      expect(bare.code).toBe(4);
      expect(bare.stdout).toMatch(/^irreproducible: element 1 \(inbox seq \d+\) asked model triage-model in activation seq 0, which completed before the snapshot was taken, and the snapshot holds no replay journal of it/m);
      expect(bare.stdout).toMatch(/^ {2}to replay element 1 and after: add --model-script <module>, a fake-model script whose `rules` answer model triage-model/m);
      expect(bare.stdout).toMatch(/^ {2}to record the responses of activations to come: keep activator.replayJournal on/m);
      expect(bare.stdout).toMatch(/^ {2}to replay that activation with its recorded responses: take the snapshot while the key is suspended in it/m);

      const scripted = await cli('replay', file, '--modules', 'dist/examples/langgraph-triage/triage.agent.js', '--model-script', 'dist/examples/langgraph-triage/triage-model.js');
      expect(scripted.stderr).toBe('');
      expect(scripted.stdout).toMatch(/^reproduced: 3 elements replayed with no divergence$/m);
      expect(scripted.code).toBe(0);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
