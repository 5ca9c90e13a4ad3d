// The CLI's connection error must say which NATS it tried (issue 13): a newcomer with the wrong
// NATS_URL otherwise sees only CONNECTION_REFUSED. No server runs on the port used here.
import { execFile } from 'node:child_process';
import { createServer } from 'node:net';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../harness/index.js';

const run = promisify(execFile);

/** A loopback port nothing listens on (bound, read, released). */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

describe('the CLI without a reachable NATS', () => {
  it('names the URL it tried (without a password in it) and exits non-zero', async () => {
    const port = await closedPort();
    const failure = await run(process.execPath, [`${REPO_ROOT}/bin/nats-agents.mjs`, 'provision'], {
      env: { ...process.env, NATS_URL: `nats://ops:s3cret@127.0.0.1:${port}` },
      timeout: 60_000,
    }).then(
      () => undefined,
      (error: unknown) => error as { code: number; stderr: string },
    );
    expect(failure).toBeDefined();
    expect(failure!.code).not.toBe(0);
    expect(failure!.stderr).toContain(`cannot connect to NATS at nats://127.0.0.1:${port}`);
    expect(failure!.stderr).not.toContain('s3cret');
  }, 90_000);
});
