// Layer 3: the Helm chart rendered by a pinned helm, offline. A chart that lints can still ship
// pods that never become ready, leak a secret into plain values or block every node drain, so
// each rendered object is checked against the Kubernetes schemas, each service's config file
// against the runtime's own loader, and the operational rules (probes, security, budgets,
// autoscalers, grace periods, secrets by reference) are asserted object by object.
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, posix } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse as parseYaml, stringify as stringifyYaml } from 'yaml';
import { loadConfig, RuntimeConfigSchema, type RuntimeConfig } from '#config';
import { ensureHelm } from '../../scripts/fetch-helm.mjs';
import { renderFromChart, VALUES_DOC } from '../../scripts/helm-values-doc.mjs';
import { REPO_ROOT } from '../harness/service-process.js';
import { HelmCli } from './helm-cli.js';
import { INVALID_VALUES } from './invalid-values.js';
import { validateKubernetesObject } from './kubernetes-schema.js';
import { allContainers, named, ofKind, parseRendered, selects, type Container, type K8sObject, type PodSpec, type Workload } from './rendered-objects.js';
import { containsUriPassword, literalSecretReason } from './secret-detector.js';

const CHART_DIR = join(REPO_ROOT, 'helm', 'nats-agents');
const CI_DIR = join(CHART_DIR, 'ci');
const CI_FILES = readdirSync(CI_DIR)
  .filter((name) => name.endsWith('.yaml'))
  .sort();
const RUNTIME_SERVICES = ['ingress', 'activator', 'effector', 'memory-store'] as const;
const OPS_PORT = 9464;

/** A rendered values file: every object and, per runtime workload, the config it loads. */
interface Rendering {
  readonly objects: K8sObject[];
  readonly deployments: Workload[];
  readonly workloads: Workload[];
}

let helm: HelmCli;
let scratch: string;
const renderings = new Map<string, Rendering>();

function render(file: string): Rendering {
  const cached = renderings.get(file);
  if (cached !== undefined) return cached;
  const result = helm.template(join(CI_DIR, file));
  if (result.status !== 0) throw new Error(`helm template -f ${file} failed:\n${result.stderr}`);
  const objects = parseRendered(result.stdout);
  const deployments = ofKind<Workload>(objects, 'Deployment');
  const rendering = { objects, deployments, workloads: [...deployments, ...ofKind<Workload>(objects, 'Job')] };
  renderings.set(file, rendering);
  return rendering;
}

function componentOf(workload: K8sObject): string | undefined {
  return workload.metadata.labels?.['app.kubernetes.io/component'];
}

function runtimeDeployments(r: Rendering): Workload[] {
  return r.deployments.filter((d) => (RUNTIME_SERVICES as readonly string[]).includes(componentOf(d) ?? ''));
}

function mainContainer(workload: Workload): Container {
  const container = workload.spec.template.spec.containers[0];
  if (container === undefined) throw new Error(`${workload.metadata.name} has no container`);
  return container;
}

function envValue(container: Container, name: string): string | undefined {
  return container.env?.find((e) => e.name === name)?.value;
}

/** The config file a runtime workload's container reads through AGENTS_CONFIG, as text. */
function configText(r: Rendering, workload: Workload): string {
  const container = mainContainer(workload);
  const path = envValue(container, 'AGENTS_CONFIG');
  if (path === undefined) throw new Error(`${workload.metadata.name}: no AGENTS_CONFIG`);
  const pod = workload.spec.template.spec;
  const mount = container.volumeMounts?.find((m) => path.startsWith(`${m.mountPath}/`));
  const volume = pod.volumes?.find((v) => v.name === mount?.name);
  const item = volume?.configMap?.items?.find((i) => posix.join(mount!.mountPath, i.path) === path);
  if (volume?.configMap === undefined || item === undefined) throw new Error(`${workload.metadata.name}: AGENTS_CONFIG ${path} is not a mounted ConfigMap key`);
  const configMap = named<K8sObject & { data: Record<string, string> }>(r.objects, 'ConfigMap', volume.configMap.name);
  const text = configMap.data[item.key];
  if (text === undefined) throw new Error(`${workload.metadata.name}: ConfigMap ${volume.configMap.name} has no key ${item.key}`);
  return text;
}

/** Loads a workload's config with the runtime's loader and the container's environment. */
function loadWorkloadConfig(r: Rendering, workload: Workload): RuntimeConfig {
  const file = join(scratch, `${workload.metadata.name}-${Math.random().toString(36).slice(2)}.yaml`);
  writeFileSync(file, configText(r, workload));
  const env: Record<string, string> = {};
  for (const variable of mainContainer(workload).env ?? []) {
    if (variable.value !== undefined) env[variable.name] = variable.value;
    // A secretKeyRef resolves at run time; stand in a value of the right shape.
    else if (variable.valueFrom?.secretKeyRef !== undefined) env[variable.name] = variable.name === 'AGENTS_LONGTERM_URI' ? 'redis://127.0.0.1:6379' : 'from-secret';
  }
  return loadConfig({ env, file });
}

/** Every file path a loaded config names, with the config path that names it. */
function referencedFiles(config: RuntimeConfig): [string, string][] {
  const files: [string, string | undefined][] = [
    ['nats.credsFile', config.nats.credsFile],
    ['nats.nkeySeedFile', config.nats.nkeySeedFile],
    ['nats.tokenFile', config.nats.tokenFile],
    ['nats.passwordFile', config.nats.passwordFile],
    ['nats.tls.caFile', config.nats.tls?.caFile],
    ['nats.tls.certFile', config.nats.tls?.certFile],
    ['nats.tls.keyFile', config.nats.tls?.keyFile],
    ['model.apiKeyFile', config.model.provider === 'openai-compatible' ? config.model.apiKeyFile : undefined],
    ['signing.keyFile', config.signing.keyFile],
    ['signing.keyringFile', config.signing.keyringFile],
    ['auth.apiKeysFile', config.auth.apiKeysFile],
    ['auth.jwt.secretFile', config.auth.jwt?.secretFile],
    ['auth.jwt.publicKeyFile', config.auth.jwt?.publicKeyFile],
  ];
  return files.filter((entry): entry is [string, string] => entry[1] !== undefined);
}

/** Whether `path` is a key of a Secret volume mounted into `container`. */
function isMountedSecretFile(pod: PodSpec, container: Container, path: string): boolean {
  return (container.volumeMounts ?? []).some((mount) => {
    const volume = pod.volumes?.find((v) => v.name === mount.name);
    return volume?.secret?.items?.some((item) => posix.join(mount.mountPath, item.path) === path) === true;
  });
}

/** The replica count a budget must leave room in: the autoscaler's minimum, else replicas. */
function floorReplicas(r: Rendering, deployment: Workload): number {
  const hpa = ofKind<K8sObject & { spec: { scaleTargetRef: { name: string }; minReplicas: number } }>(r.objects, 'HorizontalPodAutoscaler').find(
    (h) => h.spec.scaleTargetRef.name === deployment.metadata.name,
  );
  return hpa?.spec.minReplicas ?? deployment.spec.replicas ?? 1;
}

function podsKeptUp(budget: number | string, replicas: number): number {
  return typeof budget === 'string' ? Math.ceil((replicas * Number(budget.replace('%', ''))) / 100) : budget;
}

beforeAll(() => {
  helm = new HelmCli(ensureHelm(), CHART_DIR);
  scratch = mkdtempSync(join(tmpdir(), 'chart-test-'));
});

afterAll(() => {
  helm?.dispose();
  if (scratch !== undefined) rmSync(scratch, { recursive: true, force: true });
});

describe('helm/nats-agents', () => {
  it('has a values file for each deployment shape the docs describe', () => {
    expect(CI_FILES).toEqual(
      expect.arrayContaining([
        'default-values.yaml',
        'production-values.yaml',
        'external-nats-values.yaml',
        'jaeger-quickstart-values.yaml',
        'agents-from-volume-values.yaml',
        'agents-from-configmap-values.yaml',
        'console-values.yaml',
      ]),
    );
  });

  describe.each(CI_FILES)('with ci/%s', (file) => {
    it('passes helm lint --strict', () => {
      const result = helm.lint(join(CI_DIR, file));
      expect(result.stderr + result.stdout).toContain('0 chart(s) failed');
      expect(result.status).toBe(0);
    });

    it('renders only objects that validate against the Kubernetes schemas', async () => {
      const { objects } = render(file);
      expect(objects.length).toBeGreaterThan(10);
      for (const object of objects) await validateKubernetesObject(object);
    });

    it('renders one Deployment per service, each running its own entry point from the one image', () => {
      const r = render(file);
      const deployments = runtimeDeployments(r);
      expect(deployments.map(componentOf).sort()).toEqual([...RUNTIME_SERVICES].sort());
      const images = new Set(deployments.map((d) => (mainContainer(d) as Container & { image: string }).image));
      expect(images.size).toBe(1);
      for (const deployment of deployments) {
        expect((mainContainer(deployment) as Container & { command: string[] }).command).toEqual(['node', `dist/apps/${componentOf(deployment)!}/src/main.js`]);
      }
    });

    it('gives every Deployment container liveness and readiness probes, on the ops listener for the runtime', () => {
      const r = render(file);
      for (const deployment of r.deployments) {
        for (const container of deployment.spec.template.spec.containers) {
          expect(container.livenessProbe?.httpGet, `${deployment.metadata.name}/${container.name} liveness`).toBeDefined();
          expect(container.readinessProbe?.httpGet, `${deployment.metadata.name}/${container.name} readiness`).toBeDefined();
        }
      }
      for (const deployment of runtimeDeployments(r)) {
        const container = mainContainer(deployment);
        expect(container.livenessProbe?.httpGet).toEqual({ path: '/healthz', port: 'ops' });
        expect(container.readinessProbe?.httpGet).toEqual({ path: '/readyz', port: 'ops' });
        expect(container.startupProbe?.httpGet).toEqual({ path: '/healthz', port: 'ops' });
        expect(container.ports?.find((p) => p.name === 'ops')?.containerPort).toBe(OPS_PORT);
        expect(envValue(container, 'AGENTS_OPS_PORT')).toBe(String(OPS_PORT));
        expect(envValue(container, 'AGENTS_OPS_HOST')).toBe('0.0.0.0');
      }
    });

    it('runs every container as non-root with a read-only root filesystem, no capabilities and the RuntimeDefault seccomp profile', () => {
      for (const workload of render(file).workloads) {
        const pod = workload.spec.template.spec;
        expect(pod.automountServiceAccountToken, `${workload.metadata.name} mounts a ServiceAccount token`).toBe(false);
        for (const container of allContainers(pod)) {
          const where = `${workload.metadata.name}/${container.name}`;
          const security = container.securityContext;
          expect(security?.runAsNonRoot ?? pod.securityContext?.runAsNonRoot, where).toBe(true);
          expect(security?.runAsUser ?? pod.securityContext?.runAsUser, where).toBeGreaterThan(0);
          expect(security?.readOnlyRootFilesystem, where).toBe(true);
          expect(security?.allowPrivilegeEscalation, where).toBe(false);
          expect(security?.capabilities?.drop, where).toContain('ALL');
          expect((security?.seccompProfile ?? pod.securityContext?.seccompProfile)?.type, where).toBe('RuntimeDefault');
        }
        for (const container of pod.containers) {
          const tmp = container.volumeMounts?.find((m) => m.mountPath === '/tmp');
          expect(pod.volumes?.find((v) => v.name === tmp?.name)?.emptyDir, `${workload.metadata.name}/${container.name} has no writable /tmp`).toBeDefined();
        }
      }
    });

    it('renders no Secret and no secret value in an environment variable or a ConfigMap', () => {
      const r = render(file);
      expect(ofKind(r.objects, 'Secret')).toEqual([]);
      for (const workload of r.workloads) {
        for (const container of allContainers(workload.spec.template.spec)) {
          for (const variable of container.env ?? []) {
            if (variable.value === undefined) continue;
            expect(literalSecretReason(variable.name, variable.value), `${workload.metadata.name}/${container.name}`).toBeUndefined();
          }
        }
      }
      for (const configMap of ofKind<K8sObject & { data?: Record<string, string> }>(r.objects, 'ConfigMap')) {
        for (const [key, text] of Object.entries(configMap.data ?? {})) {
          expect(containsUriPassword(text), `${configMap.metadata.name}/${key}`).toBe(false);
          expect(text, `${configMap.metadata.name}/${key}`).not.toMatch(/apiKey:|password:|token:|secret:/i);
        }
      }
    });

    it("writes a config file per service that the runtime's loader accepts and that names only mounted secret files", () => {
      const r = render(file);
      const configured = r.workloads.filter((w) => envValue(mainContainer(w), 'AGENTS_CONFIG') !== undefined);
      const optional = [...(ofKind(r.objects, 'Job').length > 0 ? ['provision'] : []), ...(r.deployments.some((d) => componentOf(d) === 'console') ? ['console'] : [])];
      expect(configured.map(componentOf).sort()).toEqual([...RUNTIME_SERVICES, ...optional].sort());
      const prefixes = new Set<string>();
      for (const workload of configured) {
        const config = loadWorkloadConfig(r, workload);
        if (componentOf(workload) !== 'provision') expect([config.ops.host, config.ops.port], workload.metadata.name).toEqual(['0.0.0.0', OPS_PORT]);
        prefixes.add(`${config.prefix}/${config.partitions}/${config.activator.leaseTtlMs}/${config.effector.resultTtlMs}/${JSON.stringify(config.streams)}`);
        const pod = workload.spec.template.spec;
        const container = mainContainer(workload);
        for (const [key, path] of referencedFiles(config)) {
          expect(isMountedSecretFile(pod, container, path), `${workload.metadata.name}: ${key} ${path} is not a mounted Secret key`).toBe(true);
        }
        for (const module of [...config.agentModules, ...config.effector.toolModules].filter((m) => m.startsWith('/'))) {
          const mount = container.volumeMounts?.find((m) => module.startsWith(`${m.mountPath}/`));
          expect(mount?.readOnly, `${workload.metadata.name}: module ${module} is not on a read-only mount`).toBe(true);
        }
      }
      // Provisioning and every service must agree on the names and sizes they provision.
      expect(prefixes.size).toBe(1);
    });

    it('gives each service a termination grace period longer than its longest unit of work', () => {
      const r = render(file);
      for (const deployment of runtimeDeployments(r)) {
        const config = loadWorkloadConfig(r, deployment);
        const work = {
          ingress: config.nats.requestTimeoutMs,
          activator: config.activator.activationTimeoutMs,
          effector: config.effector.toolTimeoutMs,
          'memory-store': config.longterm.deadlineMs,
        }[componentOf(deployment) as (typeof RUNTIME_SERVICES)[number]];
        expect(deployment.spec.template.spec.terminationGracePeriodSeconds! * 1000, deployment.metadata.name).toBeGreaterThan(work);
      }
    });

    it('keeps every PodDisruptionBudget below the replicas of the one Deployment it selects', () => {
      const r = render(file);
      const budgets = ofKind<K8sObject & { spec: { selector: { matchLabels: Record<string, string> }; minAvailable?: number | string; maxUnavailable?: number | string } }>(
        r.objects,
        'PodDisruptionBudget',
      );
      expect(budgets.length).toBeGreaterThan(0);
      for (const budget of budgets) {
        const targets = r.deployments.filter((d) => selects(budget.spec.selector.matchLabels, d.spec.template.metadata.labels));
        expect(targets, budget.metadata.name).toHaveLength(1);
        const replicas = floorReplicas(r, targets[0]!);
        if (budget.spec.minAvailable !== undefined) {
          expect(podsKeptUp(budget.spec.minAvailable, replicas), `${budget.metadata.name} blocks every eviction`).toBeLessThan(replicas);
        } else {
          expect(budget.spec.maxUnavailable, budget.metadata.name).toBeDefined();
          expect(podsKeptUp(budget.spec.maxUnavailable!, replicas), budget.metadata.name).toBeGreaterThan(0);
        }
      }
    });

    it('points every HorizontalPodAutoscaler at a rendered Deployment that leaves replicas to it', () => {
      const r = render(file);
      for (const hpa of ofKind<K8sObject & { spec: { scaleTargetRef: { apiVersion: string; kind: string; name: string }; minReplicas: number; maxReplicas: number } }>(
        r.objects,
        'HorizontalPodAutoscaler',
      )) {
        expect(hpa.spec.scaleTargetRef.apiVersion).toBe('apps/v1');
        expect(hpa.spec.scaleTargetRef.kind).toBe('Deployment');
        const target = named<Workload>(r.objects, 'Deployment', hpa.spec.scaleTargetRef.name);
        expect(['activator', 'effector']).toContain(componentOf(target));
        expect(target.spec.replicas, `${target.metadata.name} fights its autoscaler over replicas`).toBeUndefined();
        expect(hpa.spec.minReplicas).toBeLessThanOrEqual(hpa.spec.maxReplicas);
      }
    });

    it('routes every Service and ServiceMonitor to pods and ports that exist', () => {
      const r = render(file);
      const services = ofKind<K8sObject & { spec: { selector: Record<string, string>; ports: { name: string; targetPort: string | number }[] } }>(r.objects, 'Service');
      for (const service of services) {
        const pods = r.deployments.filter((d) => selects(service.spec.selector, d.spec.template.metadata.labels));
        expect(pods, `${service.metadata.name} selects no Deployment`).toHaveLength(1);
        const ports = pods[0]!.spec.template.spec.containers.flatMap((c) => c.ports ?? []);
        for (const port of service.spec.ports) expect(ports.map((p) => p.name), `${service.metadata.name}:${port.name}`).toContain(port.targetPort);
      }
      for (const monitor of ofKind<K8sObject & { spec: { selector: { matchLabels: Record<string, string> }; endpoints: { port: string; path: string }[] } }>(r.objects, 'ServiceMonitor')) {
        const scraped = services.filter((s) => selects(monitor.spec.selector.matchLabels, s.metadata.labels));
        const consoleOn = r.deployments.some((d) => componentOf(d) === 'console');
        expect(scraped.map((s) => s.metadata.labels?.['app.kubernetes.io/component']).sort()).toEqual([...RUNTIME_SERVICES, ...(consoleOn ? ['console'] : [])].sort());
        for (const endpoint of monitor.spec.endpoints) {
          expect(endpoint.path).toBe('/metrics');
          for (const service of scraped) expect(service.spec.ports.map((p) => p.name)).toContain(endpoint.port);
        }
      }
      for (const ingress of ofKind<K8sObject & { spec: { rules: { http: { paths: { backend: { service: { name: string; port: { name: string } } } }[] } }[] } }>(r.objects, 'Ingress')) {
        for (const path of ingress.spec.rules.flatMap((rule) => rule.http.paths)) {
          const service = named<(typeof services)[number]>(r.objects, 'Service', path.backend.service.name);
          expect(service.spec.ports.map((p) => p.name)).toContain(path.backend.service.port.name);
        }
      }
    });
  });

  it('provisions from a pre-install and pre-upgrade hook Job whose config file is created before it', () => {
    const { objects } = render('default-values.yaml');
    const job = named<Workload>(objects, 'Job', 'rel-nats-agents-provision');
    const configMap = named(objects, 'ConfigMap', 'rel-nats-agents-provision');
    for (const hooked of [job, configMap]) {
      expect(hooked.metadata.annotations?.['helm.sh/hook']).toBe('pre-install,pre-upgrade');
      expect(hooked.metadata.annotations?.['helm.sh/hook-delete-policy']).toBe('before-hook-creation,hook-succeeded');
    }
    expect(Number(configMap.metadata.annotations?.['helm.sh/hook-weight'])).toBeLessThan(Number(job.metadata.annotations?.['helm.sh/hook-weight']));
    expect((mainContainer(job) as Container & { command: string[] }).command).toEqual(['node', 'bin/nats-agents.mjs', 'provision']);
    // The release's ServiceAccount is created after pre-install hooks run.
    expect(job.spec.template.spec.serviceAccountName).toBeUndefined();
  });

  it('admits only what each service serves with networkPolicy: ops from the monitoring namespace, and the HTTP API of ingress from the ingress controller', () => {
    const { objects } = render('production-values.yaml');
    const policies = ofKind<K8sObject & { spec: { podSelector: unknown; policyTypes: string[]; ingress: { ports: { port: string }[]; from?: unknown[] }[] } }>(objects, 'NetworkPolicy');
    expect(policies.map(componentOf).sort()).toEqual([...RUNTIME_SERVICES].sort());
    for (const policy of policies) {
      expect(policy.spec.policyTypes).toEqual(['Ingress']);
      const ports = policy.spec.ingress.map((rule) => rule.ports.map((p) => p.port).join());
      expect(ports).toEqual(componentOf(policy) === 'ingress' ? ['ops', 'http'] : ['ops']);
      for (const rule of policy.spec.ingress) expect(rule.from).toHaveLength(1);
    }
    expect(ofKind(render('default-values.yaml').objects, 'NetworkPolicy')).toEqual([]);
  });

  it('publishes /v1 through the public Ingress only to callers with a credential: API keys from a Secret, JWTs from the IdP', () => {
    const r = render('production-values.yaml');
    const ingress = runtimeDeployments(r).find((d) => componentOf(d) === 'ingress')!;
    expect(ofKind(r.objects, 'Ingress')).toHaveLength(1);
    const config = loadWorkloadConfig(r, ingress);
    expect(config.auth.apiKeysFile).toBe('/var/run/secrets/nats-agents/api-keys/api-keys.yaml');
    expect(config.auth.jwt).toMatchObject({ issuer: 'https://idp.example.com/', audience: 'nats-agents', jwksUrl: 'https://idp.example.com/.well-known/jwks.json' });
    expect(config.ingress.routes).toEqual({ results: { enabled: false }, approvals: { enabled: true } });
    // Only ingress holds HTTP credentials.
    for (const other of runtimeDeployments(r).filter((d) => componentOf(d) !== 'ingress')) {
      expect(loadWorkloadConfig(r, other).auth, componentOf(other)).toEqual({ apiKeys: [] });
    }
    // The chart's defaults publish nothing and take no results or approvals over HTTP.
    const defaults = render('default-values.yaml');
    expect(ofKind(defaults.objects, 'Ingress')).toEqual([]);
    const plain = loadWorkloadConfig(defaults, runtimeDeployments(defaults).find((d) => componentOf(d) === 'ingress')!);
    expect(plain.ingress.routes).toEqual({ results: { enabled: false }, approvals: { enabled: false } });
  });

  it('gives each service only the secrets it uses, by reference', () => {
    const r = render('production-values.yaml');
    const secretsOf = (component: string): { files: string[]; env: string[] } => {
      const deployment = runtimeDeployments(r).find((d) => componentOf(d) === component)!;
      const pod = deployment.spec.template.spec;
      return {
        files: (pod.volumes ?? []).filter((v) => v.secret !== undefined).map((v) => `${v.name}:${v.secret!.secretName}`).sort(),
        env: (mainContainer(deployment).env ?? []).filter((e) => e.valueFrom?.secretKeyRef !== undefined).map((e) => `${e.name}:${e.valueFrom!.secretKeyRef!.name}`).sort(),
      };
    };
    expect(secretsOf('ingress')).toEqual({ files: ['api-keys:ingress-api-keys', 'keyring:intent-signing', 'nats-auth:nats-agents-ingress-creds', 'nats-tls:nats-agents-client-tls'], env: [] });
    expect(secretsOf('activator')).toEqual({
      files: ['keyring:intent-signing', 'model-api-key:model-provider', 'nats-auth:nats-agents-activator-creds', 'nats-tls:nats-agents-client-tls', 'signing-key:intent-signing'],
      env: [],
    });
    // The activator uses the tier through the memory-store: it is told the tier is on, not given the store's credentials.
    expect(mainContainer(runtimeDeployments(r).find((d) => componentOf(d) === 'activator')!).env?.find((e) => e.name === 'AGENTS_LONGTERM_ENABLED')?.value).toBe('true');
    expect(secretsOf('effector')).toEqual({
      files: ['keyring:intent-signing', 'nats-auth:nats-agents-effector-creds', 'nats-tls:nats-agents-client-tls'],
      env: ['REFUND_API_TOKEN:payments-api'],
    });
    expect(secretsOf('memory-store')).toEqual({ files: ['nats-auth:nats-agents-memory-store-creds', 'nats-tls:nats-agents-client-tls'], env: ['AGENTS_LONGTERM_URI:longterm-store'] });
    const job = named<Workload>(r.objects, 'Job', 'rel-nats-agents-provision');
    expect(job.spec.template.spec.volumes?.find((v) => v.name === 'nats-auth')?.secret?.secretName).toBe('nats-agents-admin-creds');
  });

  it('gives only the memory-store the Google credentials of bigtable:// and firestore://, as a key file named by GOOGLE_APPLICATION_CREDENTIALS', () => {
    const r = render('google-longterm-values.yaml');
    for (const deployment of runtimeDeployments(r)) {
      const pod = deployment.spec.template.spec;
      const volume = (pod.volumes ?? []).find((v) => v.name === 'google-credentials');
      const mount = (mainContainer(deployment).volumeMounts ?? []).find((m) => m.name === 'google-credentials');
      const path = envValue(mainContainer(deployment), 'GOOGLE_APPLICATION_CREDENTIALS');
      if (componentOf(deployment) === 'memory-store') {
        expect(volume?.secret?.secretName).toBe('gcp-longterm-sa');
        expect(volume?.secret?.items).toEqual([{ key: 'sa.json', path: 'sa.json' }]);
        expect(mount?.readOnly).toBe(true);
        expect(path).toBe(`${mount?.mountPath}/sa.json`);
      } else {
        expect({ component: componentOf(deployment), volume, path }).toEqual({ component: componentOf(deployment), volume: undefined, path: undefined });
      }
    }
    // Workload identity needs only the ServiceAccount's annotation: no key, no mounted token.
    const account = named<K8sObject & { automountServiceAccountToken?: boolean }>(r.objects, 'ServiceAccount', 'rel-nats-agents');
    expect(account.metadata.annotations?.['iam.gke.io/gcp-service-account']).toBe('nats-agents-memory@acme-prod.iam.gserviceaccount.com');
    expect(ofKind<K8sObject>(render('default-values.yaml').objects, 'Deployment').flatMap((d) => JSON.stringify(d).includes('GOOGLE_APPLICATION_CREDENTIALS') ? [d] : [])).toEqual([]);
  });

  it('sends every service its traces to the quick-start Jaeger, and turns the SDK off without an endpoint', () => {
    const quick = render('jaeger-quickstart-values.yaml');
    const jaeger = named<K8sObject & { spec: { ports: { name: string; port: number }[] } }>(quick.objects, 'Service', 'rel-nats-agents-jaeger');
    expect(jaeger.spec.ports.find((p) => p.name === 'otlp-http')?.port).toBe(4318);
    for (const deployment of runtimeDeployments(quick)) {
      expect(envValue(mainContainer(deployment), 'OTEL_EXPORTER_OTLP_ENDPOINT')).toBe('http://rel-nats-agents-jaeger:4318');
      // service.name stays the runtime's own; the pod identifies the instance.
      expect(envValue(mainContainer(deployment), 'OTEL_SERVICE_NAME')).toBeUndefined();
      expect(envValue(mainContainer(deployment), 'OTEL_RESOURCE_ATTRIBUTES')).toContain('service.instance.id=$(POD_NAME)');
    }
    for (const deployment of runtimeDeployments(render('default-values.yaml'))) {
      expect(envValue(mainContainer(deployment), 'OTEL_EXPORTER_OTLP_ENDPOINT')).toBeUndefined();
      expect(envValue(mainContainer(deployment), 'OTEL_SDK_DISABLED')).toBe('true');
      // An activation's state and outbox steps are events of its span unless tracing.steps says spans.
      expect(envValue(mainContainer(deployment), 'AGENTS_TRACE_STEPS')).toBe('events');
    }
    for (const deployment of runtimeDeployments(render('production-values.yaml'))) {
      expect(envValue(mainContainer(deployment), 'OTEL_EXPORTER_OTLP_ENDPOINT')).toBe('http://otel-collector.observability:4318');
    }
  });

  it('copies agent modules out of their image with an init container and mounts them read-only where they are loaded', () => {
    const r = render('agents-from-volume-values.yaml');
    for (const deployment of runtimeDeployments(r)) {
      const pod = deployment.spec.template.spec;
      const component = componentOf(deployment)!;
      const mount = mainContainer(deployment).volumeMounts?.find((m) => m.name === 'agents');
      if (component === 'memory-store') {
        expect(mount).toBeUndefined();
        continue;
      }
      expect(mount).toEqual({ name: 'agents', mountPath: '/opt/agents', readOnly: true });
      const init = pod.initContainers?.find((c) => c.name === 'copy-agents') as (Container & { image: string; command: string[] }) | undefined;
      expect(init?.image).toBe('registry.example.com/agents/fraud-triage:2026.11.3');
      expect(init?.command).toEqual(['cp', '-R', '/agents/.', '/opt/agents/']);
      expect(pod.volumes?.find((v) => v.name === 'agents')?.emptyDir).toBeDefined();
    }
  });

  it("ships the runtime's own defaults for every config key the chart exposes", () => {
    const values = parseYaml(readFileSync(join(CHART_DIR, 'values.yaml'), 'utf8')) as {
      config: Record<string, unknown>;
      nats: { requestTimeoutMs: number };
      ops: { port: number; lagSampleMs: number };
    };
    const defaults = RuntimeConfigSchema.parse({}) as unknown as Record<string, unknown>;
    // The chart's own choices: the quick-start model, the active cluster key id, a production
    // partition count (decision 0013: the runtime's default of 16 suits laptops, not clusters), and
    // verification on (decision 0058: the runtime's default is off so embeddings opt in).
    const { model: _model, signing: _signing, partitions, ...exposed } = values.config;
    expect(partitions).toBe(256);
    const sections = exposed as Record<string, Record<string, unknown>>;
    expect([sections.activator?.verification, sections.effector?.verification]).toEqual(['require', 'require']);
    delete sections.activator?.verification;
    delete sections.effector?.verification;
    const differing: string[] = [];
    for (const [section, setting] of Object.entries(exposed)) {
      if (typeof setting !== 'object' || setting === null) {
        if (setting !== defaults[section]) differing.push(`${section}: chart ${String(setting)}, runtime ${String(defaults[section])}`);
        continue;
      }
      for (const [key, value] of Object.entries(setting)) {
        const runtime = (defaults[section] as Record<string, unknown> | undefined)?.[key];
        if (JSON.stringify(value) !== JSON.stringify(runtime)) differing.push(`${section}.${key}: chart ${JSON.stringify(value)}, runtime ${JSON.stringify(runtime)}`);
      }
    }
    if (values.nats.requestTimeoutMs !== (defaults.nats as RuntimeConfig['nats']).requestTimeoutMs) differing.push('nats.requestTimeoutMs');
    for (const key of ['port', 'lagSampleMs'] as const) {
      if (values.ops[key] !== (defaults.ops as RuntimeConfig['ops'])[key]) differing.push(`ops.${key}`);
    }
    expect(differing).toEqual([]);
    expect(Object.keys(exposed).length).toBeGreaterThan(5);
  });

  describe('the console, the self-test, KEDA, alerts and the dashboard (ci/console-values.yaml)', () => {
    const file = 'console-values.yaml';

    it('runs the console from the one image with its own config, NATS user and API keys Secret, behind a Service and an Ingress', () => {
      const r = render(file);
      const deployment = r.deployments.find((d) => componentOf(d) === 'console')!;
      const container = mainContainer(deployment) as Container & { command: string[]; image: string };
      expect(container.command).toEqual(['node', 'dist/apps/console/src/main.js']);
      expect(container.image).toBe((mainContainer(runtimeDeployments(r)[0]!) as Container & { image: string }).image);
      const config = loadWorkloadConfig(r, deployment);
      expect(config.console.httpHost).toBe('0.0.0.0');
      expect(config.console.metricsTargets).toHaveLength(RUNTIME_SERVICES.length);
      expect(config.auth.apiKeysFile).toBeDefined();
      expect(isMountedSecretFile(deployment.spec.template.spec, container, config.auth.apiKeysFile!)).toBe(true);
      expect(isMountedSecretFile(deployment.spec.template.spec, container, config.nats.nkeySeedFile!)).toBe(true);
      const pod = deployment.spec.template.spec;
      const seed = pod.volumes?.find((v) => v.name === 'nats-auth');
      expect(seed?.secret?.secretName).toBe('nats-agents-console-nkey');
      const ingress = ofKind<K8sObject & { spec: { rules: { http: { paths: { backend: { service: { name: string; port: { name: string } } } }[] } }[] } }>(r.objects, 'Ingress').find(
        (i) => i.metadata.labels?.['app.kubernetes.io/component'] === 'console',
      )!;
      expect(ingress.spec.rules[0]!.http.paths[0]!.backend.service).toEqual({ name: deployment.metadata.name, port: { name: 'http' } });
      const policy = named<K8sObject & { spec: { ingress: { ports: { port: string }[] }[] } }>(r.objects, 'NetworkPolicy', deployment.metadata.name);
      expect(policy.spec.ingress.flatMap((rule) => rule.ports.map((p) => p.port)).sort()).toEqual(['http', 'ops']);
    });

    it('refuses a console Ingress without sign-in configured', () => {
      const values = join(scratch, 'console-open.yaml');
      writeFileSync(values, stringifyYaml({ console: { enabled: true, kubernetesIngress: { enabled: true } } }));
      const result = helm.template(values);
      expect(result.status).not.toBe(0);
      expect(result.stderr).toMatch(/console.kubernetesIngress needs sign-in configured/);
    });

    it('has a helm test hook pod that publishes to the example agent and waits for its output', () => {
      const r = render(file);
      const pod = ofKind<K8sObject & { spec: { restartPolicy: string; containers: (Container & { command: string[] })[] } }>(r.objects, 'Pod').find(
        (p) => p.metadata.annotations?.['helm.sh/hook'] === 'test',
      )!;
      expect(pod.spec.restartPolicy).toBe('Never');
      const command = pod.spec.containers[0]!.command;
      expect(command.slice(0, 4)).toEqual(['node', 'bin/nats-agents.mjs', 'publish', 'hello']);
      expect(command).toContain('--wait');
      const config = ofKind<K8sObject & { data: Record<string, string> }>(r.objects, 'ConfigMap').find((c) => c.metadata.annotations?.['helm.sh/hook'] === 'test')!;
      expect(config.data['self-test.yaml']).toContain('url: nats://nats.nats.svc:4222');
    });

    it('scales activators and effectors with KEDA on their consumer lag, and refuses KEDA beside the HPA', () => {
      const r = render(file);
      const scaled = ofKind<K8sObject & { spec: { scaleTargetRef: { name: string }; triggers: { type: string; metadata: { query: string } }[] } }>(r.objects, 'ScaledObject');
      expect(scaled.map((s) => componentOf(named<Workload>(r.objects, 'Deployment', s.spec.scaleTargetRef.name))).sort()).toEqual(['activator', 'effector']);
      expect(scaled.map((s) => s.spec.triggers[0]!.metadata.query).sort()).toEqual([
        'sum(agents_consumer_pending_messages{stream="AGENTS_INBOX"})',
        'sum(agents_consumer_pending_messages{stream="AGENTS_INTENTS"})',
      ]);
      expect(ofKind(r.objects, 'HorizontalPodAutoscaler')).toHaveLength(0);
      const both = join(scratch, 'keda-and-hpa.yaml');
      writeFileSync(both, stringifyYaml({ keda: { enabled: true }, activator: { autoscaling: { enabled: true } } }));
      expect(helm.template(both).stderr).toMatch(/KEDA owns its HorizontalPodAutoscaler/);
    });

    it('turns the suggested alerts of docs/operations.md into the PrometheusRule, one for one', () => {
      const doc = readFileSync(join(REPO_ROOT, 'docs', 'operations.md'), 'utf8');
      const block = /### Suggested alerts\s+```yaml\n([\s\S]*?)```/.exec(doc)?.[1];
      const documented = parseYaml(block ?? '') as { alert: string; expr: string; for?: string }[];
      expect(documented.length).toBeGreaterThan(5);
      const rule = ofKind<K8sObject & { spec: { groups: { rules: { alert: string; expr: string; for?: string }[] }[] } }>(render(file).objects, 'PrometheusRule')[0]!;
      expect(rule.spec.groups[0]!.rules.map((r) => ({ alert: r.alert, expr: r.expr, ...(r.for ? { for: r.for } : {}) }))).toEqual(
        documented.map((a) => ({ alert: a.alert, expr: a.expr, ...(a.for ? { for: a.for } : {}) })),
      );
    });

    it('ships the Grafana dashboard as a sidecar ConfigMap of valid JSON with queries on every panel', () => {
      const map = ofKind<K8sObject & { data: Record<string, string> }>(render(file).objects, 'ConfigMap').find((c) => c.metadata.labels?.grafana_dashboard === '1')!;
      const dashboard = JSON.parse(map.data['nats-agents.json']!) as { panels: { title: string; targets: { expr: string }[] }[] };
      expect(dashboard.panels.length).toBeGreaterThan(5);
      for (const panel of dashboard.panels) expect(panel.targets.length, panel.title).toBeGreaterThan(0);
    });
  });

  it('has the metadata a chart repository lists: home, sources and maintainers, the same as package.json says', () => {
    const chart = parseYaml(readFileSync(join(CHART_DIR, 'Chart.yaml'), 'utf8')) as { home?: string; sources?: string[]; maintainers?: { name: string; email?: string }[] };
    expect(chart.home).toMatch(/^https:\/\//);
    expect(chart.sources?.length).toBeGreaterThan(0);
    expect(chart.maintainers?.[0]?.name).toBeTruthy();
    // One identity for the project: the chart and every package.json name the same home, source and author.
    const manifests = ['package.json', ...readdirSync(join(REPO_ROOT, 'packages')).map((p) => join('packages', p, 'package.json'))].map(
      (file) => JSON.parse(readFileSync(join(REPO_ROOT, file), 'utf8')) as { homepage?: string; author?: string; repository?: { url?: string } },
    );
    for (const manifest of manifests) {
      expect(manifest.homepage).toBe(chart.home);
      expect(manifest.repository?.url).toBe(chart.sources![0]);
      expect(manifest.author).toBe(`${chart.maintainers![0]!.name} <${chart.maintainers![0]!.email}>`);
    }
  });

  it('keeps docs/helm-values.md generated from the current schema and defaults', () => {
    expect(readFileSync(VALUES_DOC, 'utf8'), 'run node scripts/helm-values-doc.mjs').toBe(renderFromChart());
  });

  describe('refuses invalid values in lint and template', () => {
    it.each(INVALID_VALUES.map((c) => [c.name, c] as const))('%s', (_name, invalid) => {
      const file = join(scratch, `invalid-${Math.random().toString(36).slice(2)}.yaml`);
      // Strings quoted, so `off` stays a string (YAML 1.1, which helm reads, makes a bare off a boolean).
      writeFileSync(file, stringifyYaml(invalid.values, { defaultStringType: 'QUOTE_DOUBLE', defaultKeyType: 'PLAIN' }));
      const lint = helm.lint(file);
      // helm 4's lint only logs a template `fail`; the schema it enforces.
      if (invalid.stage === 'schema') expect(lint.status, lint.stdout).not.toBe(0);
      expect(lint.stdout + lint.stderr).toMatch(invalid.error);
      const template = helm.template(file);
      expect(template.status).not.toBe(0);
      expect(template.stderr).toMatch(invalid.error);
    });
  });

  describe('secret detection', () => {
    it('flags literal secrets and passwords in URIs, and passes references and plain settings', () => {
      expect(literalSecretReason('OPENAI_API_KEY', 'sk-live-0123')).toMatch(/name says it is a secret/);
      expect(literalSecretReason('AGENTS_LONGTERM_URI', 'redis://cache:6379')).toMatch(/name says it is a secret/);
      expect(literalSecretReason('DATABASE', 'postgresql://agents:hunter2@db:5432/agents')).toMatch(/URI with a password/);
      expect(literalSecretReason('AGENTS_OPS_PORT', '9464')).toBeUndefined();
      // A path to a Secret the chart mounted (GOOGLE_APPLICATION_CREDENTIALS) is a reference; elsewhere it is not.
      expect(literalSecretReason('GOOGLE_APPLICATION_CREDENTIALS', '/var/run/secrets/nats-agents/google-credentials/sa.json')).toBeUndefined();
      expect(literalSecretReason('GOOGLE_APPLICATION_CREDENTIALS', '/tmp/sa.json')).toMatch(/name says it is a secret/);
      expect(literalSecretReason('OTEL_EXPORTER_OTLP_ENDPOINT', 'http://jaeger:4318')).toBeUndefined();
      expect(containsUriPassword('uri: rediss://default:pa55@cache:6380/0')).toBe(true);
      expect(containsUriPassword('url: nats://nats:4222')).toBe(false);
    });
  });
});
