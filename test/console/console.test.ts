// Layer 3: the operations console in a real browser. Debian's Chromium, driven by playwright-core
// (headless, no sandbox, background networking off), signs in to a console started against a real
// cluster (private nats-server, activator, ingress, effector, memory-store running the refund
// example) with an operator's and a viewer's API key. A large refund appears under Approvals, the
// operator approves it in the page, its output and committed state appear in the key inspector, a
// viewer cannot approve, a bad event appears under Errors and an erasure runs to its audit record.
// Every view is saved as a screenshot under test-results/console/ (docs/console.md shows them).
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashApiKey } from '#auth';
import { REPO_ROOT, startCluster, type TestCluster } from '../harness/index.js';
import { opsUrl } from '../observability/prometheus-text.js';

/** Where screenshots go (kept by CI as artifacts; ignored by git). */
const SHOTS = join(REPO_ROOT, 'test-results', 'console');
/** Debian's Chromium (`.ci/run` installs it with apt when missing); the suite fails without it. */
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

describe('the operations console in a browser', () => {
  let cluster: TestCluster;
  let browser: Browser;
  let base: string;
  let dir: string;
  const operatorKey = randomBytes(24).toString('base64url');
  const viewerKey = randomBytes(24).toString('base64url');

  beforeAll(async () => {
    if (!existsSync(join(REPO_ROOT, 'dist', 'console-web', 'index.html'))) {
      execFileSync(process.execPath, [join(REPO_ROOT, 'node_modules', 'vite', 'bin', 'vite.js'), 'build', '--config', 'apps/console/web/vite.config.mjs'], { cwd: REPO_ROOT, stdio: 'inherit' });
    }
    mkdirSync(SHOTS, { recursive: true });
    dir = await mkdtemp(join(tmpdir(), 'console-test-'));
    const config = join(dir, 'agents.yaml');
    await writeFile(
      config,
      JSON.stringify({
        ops: { lagSampleMs: 500 },
        effector: { toolModules: ['dist/examples/refund/refund.tool.js'] },
        console: { scrapeEveryMs: 1_000 },
        auth: {
          apiKeys: [
            { id: 'ada-operator', hash: hashApiKey(operatorKey), roles: ['operator'] },
            { id: 'victor-viewer', hash: hashApiKey(viewerKey), roles: ['viewer'] },
          ],
        },
      }),
    );
    cluster = await startCluster({
      agentModules: ['dist/examples/refund/refund.agent.js'],
      services: ['memory-store', 'activator', 'ingress', 'effector'],
      env: { AGENTS_CONFIG: config, AGENTS_OPS_PORT: '0', OTEL_SDK_DISABLED: 'true' },
    });
    const metrics = await Promise.all(['activator', 'ingress', 'effector'].map(async (name) => `${await opsUrl(cluster.services.get(name as 'activator')!)}/metrics`));
    const consoleService = await cluster.start('console', { AGENTS_CONSOLE_PORT: '0', AGENTS_CONSOLE_METRICS: metrics.join(','), AGENTS_CONSOLE_TRACE_URL: 'http://jaeger.example:16686/search?tags={keyDigest}' });
    base = (await consoleService.waitForLine(/console listening on (\S+)/))[1] as string;
    if (!existsSync(CHROMIUM)) throw new Error(`no Chromium at ${CHROMIUM}: apt-get install -y chromium (or set CHROMIUM_PATH)`);
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      headless: true,
      args: ['--no-sandbox', '--disable-background-networking', '--disable-dev-shm-usage', '--disable-gpu', '--disable-extensions', '--no-first-run'],
    });
  });

  afterAll(async () => {
    await browser?.close();
    await cluster?.stop();
    if (dir !== undefined) await rm(dir, { recursive: true, force: true });
  });

  /** A fresh page signed in with `key`. */
  async function signIn(key: string): Promise<Page> {
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    await page.goto(base);
    await page.getByLabel('API key or JWT').fill(key);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('navigation', { name: 'Views' }).waitFor();
    return page;
  }

  async function view(page: Page, name: string): Promise<void> {
    await page.getByRole('link', { name, exact: true }).click();
    await page.getByRole('heading', { level: 1, name }).waitFor();
  }

  it("names in the chart's Grafana dashboard only metrics the services export on /metrics", async () => {
    const exported = new Set<string>();
    for (const service of cluster.services.values()) {
      const text = await (await fetch(`${await opsUrl(service)}/metrics`)).text();
      for (const [, name, type] of text.matchAll(/^# TYPE (\S+) (\S+)$/gm)) {
        exported.add(name!);
        if (type === 'histogram') for (const suffix of ['_bucket', '_sum', '_count']) exported.add(`${name!}${suffix}`);
      }
    }
    const dashboard = JSON.parse(readFileSync(join(REPO_ROOT, 'helm', 'nats-agents', 'files', 'grafana-dashboard.json'), 'utf8')) as { panels: { targets: { expr: string }[] }[] };
    // metric names, not the label names of `by (...)` groupings or `{...}` selectors
    const exprs = dashboard.panels.flatMap((p) => p.targets.map((t) => t.expr.replace(/\bby \([^)]*\)/g, '').replace(/\{[^}]*\}/g, '')));
    const named = new Set(exprs.flatMap((expr) => [...expr.matchAll(/\b((?:agents|gen_ai)_[a-z_]+)\b/g)].map((m) => m[1]!)));
    expect(named.size).toBeGreaterThan(10);
    expect([...named].filter((name) => !exported.has(name))).toEqual([]);
  });

  it('denies the API by default: no credential is a 401, a viewer deciding is a 403, and the page sends no secret', async () => {
    expect((await fetch(`${base}/api/approvals`)).status).toBe(401);
    expect((await fetch(`${base}/api/approvals`, { headers: { Authorization: 'Bearer not-a-configured-key-at-all-xx' } })).status).toBe(401);
    const decide = await fetch(`${base}/api/approvals/decide`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${viewerKey}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ agent: 'refund', keyToken: 'x', intentId: 'y', approved: true }),
    });
    expect(decide.status).toBe(403);
    const me = await (await fetch(`${base}/api/me`, { headers: { Authorization: `Bearer ${operatorKey}` } })).text();
    expect(me).toContain('ada-operator');
    expect(me).not.toContain(operatorKey);
  });

  it('shows a large refund under Approvals; the operator approves it in the page; the output and committed state appear in the key inspector', async () => {
    await cluster.client.publishEvent('refund', 'order-e2e-1', { orderId: 'o-e2e-1', amount: 400, reason: 'damaged' });
    const page = await signIn(operatorKey);
    await view(page, 'Approvals');
    const card = page.locator('li.card', { hasText: 'order-e2e-1' });
    await card.waitFor({ timeout: 30_000 });
    await expect(card.textContent()).resolves.toContain('"amount": 400');
    await page.screenshot({ path: join(SHOTS, 'approvals.png'), fullPage: true });

    await card.getByRole('button', { name: 'Approve' }).click();
    const decided = page.getByRole('table', { name: 'Decided approval requests' }).getByRole('row', { name: /order-e2e-1/ });
    await decided.waitFor({ timeout: 30_000 });
    await expect(decided.textContent()).resolves.toMatch(/approved.*ada-operator/);
    await page.screenshot({ path: join(SHOTS, 'approvals-decided.png'), fullPage: true });

    await page.getByRole('link', { name: 'refund / order-e2e-1' }).first().click();
    await page.getByRole('heading', { level: 1, name: 'Key inspector' }).waitFor();
    const outputs = page.getByRole('list', { name: 'Recent outputs' });
    await outputs.getByText('"status": "refunded"').waitFor({ timeout: 30_000 });
    await page.getByRole('link', { name: 'Open in Jaeger' }).waitFor();
    const seq = Number(await page.getByTestId('state-seq').textContent());
    expect(seq).toBeGreaterThan(0);
    await expect(page.getByText('refund=').count()).resolves.toBe(0); // the token of order-e2e-1 needs no escaping
    await expect(page.locator('dl.facts code').first().textContent()).resolves.toBe('order-e2e-1');
    await page.screenshot({ path: join(SHOTS, 'key-inspector.png'), fullPage: true });
    await page.close();
  });

  it('shows a viewer the pending request without a way to decide it', async () => {
    await cluster.client.publishEvent('refund', 'order-e2e-2', { orderId: 'o-e2e-2', amount: 900 });
    const page = await signIn(viewerKey);
    await view(page, 'Approvals');
    const card = page.locator('li.card', { hasText: 'order-e2e-2' });
    await card.waitFor({ timeout: 30_000 });
    await expect(card.getByRole('button').count()).resolves.toBe(0);
    await page.getByText('You are signed in as a viewer').waitFor();
    await page.screenshot({ path: join(SHOTS, 'approvals-viewer.png'), fullPage: true });
    // the same request the operator's button sends, from the viewer's signed-in page
    const status = await page.evaluate(
      async ([intent, key]) => {
        const response = await fetch('api/approvals/decide', {
          method: 'POST',
          headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' },
          body: JSON.stringify({ agent: 'refund', keyToken: 'order-e2e-2', intentId: intent, approved: true }),
        });
        return response.status;
      },
      [(await card.getAttribute('data-intent')) ?? '', viewerKey] as const,
    );
    expect(status).toBe(403);
    await page.close();
  });

  it('shows a bad event under Errors, grouped by agent and reason, linking to its key', async () => {
    await cluster.client.publishEvent('refund', 'bad-e2e-1', 'this is not json');
    const page = await signIn(operatorKey);
    await view(page, 'Errors');
    const link = page.getByRole('link', { name: 'bad-e2e-1' });
    await link.waitFor({ timeout: 30_000 });
    const group = page.locator('section.card', { has: link });
    await expect(group.getByRole('heading', { level: 2 }).textContent()).resolves.toMatch(/^refund: [a-z_]+/);
    await page.screenshot({ path: join(SHOTS, 'errors.png'), fullPage: true });
    await page.close();
  });

  it('shows partition owners and the agents figures, and runs an erasure to its audit record', async () => {
    const page = await signIn(operatorKey);
    await view(page, 'Cluster');
    await page.getByRole('rowheader', { name: '0', exact: true }).waitFor();
    const firstRow = page.getByRole('row').filter({ has: page.getByRole('rowheader', { name: '0', exact: true }) });
    await expect(firstRow.textContent()).resolves.not.toContain('unowned');
    await page.screenshot({ path: join(SHOTS, 'cluster.png'), fullPage: true });

    await view(page, 'Agents');
    await page.getByLabel('Last hour').check();
    await page.getByRole('rowheader', { name: 'refund' }).waitFor({ timeout: 30_000 });
    await page.screenshot({ path: join(SHOTS, 'agents.png'), fullPage: true });

    await view(page, 'Erasure');
    page.once('dialog', (dialog) => void dialog.accept());
    await page.getByLabel('Entity key').fill('order-e2e-1');
    await page.getByRole('button', { name: 'Request erasure' }).click();
    await page.getByText(/by ada-operator: erased/).waitFor({ timeout: 60_000 });
    await page.getByRole('cell', { name: 'ada-operator' }).first().waitFor({ timeout: 30_000 });
    await page.screenshot({ path: join(SHOTS, 'erasure.png'), fullPage: true });
    await page.close();
  });
});
