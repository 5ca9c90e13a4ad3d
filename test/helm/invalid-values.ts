/**
 * Values the chart must refuse, each with the reason helm has to give: the schema's (plain
 * secrets, unknown keys, out-of-range numbers) or the templates' own cross-key checks (budgets
 * that block evictions, grace periods too short to drain, signing without its secrets).
 */

/**
 * Where a refusal comes from. `schema`: values.schema.json, enforced by `helm lint` and every
 * render. `render`: a template's `fail`, enforced by `helm template`/`install`/`upgrade`; helm 4's
 * lint only logs a template `fail` (at INFO) and still passes.
 */
export type RefusalStage = 'schema' | 'render';

/** One refused values file. */
export interface InvalidValuesCase {
  readonly name: string;
  readonly stage: RefusalStage;
  readonly values: Record<string, unknown>;
  /** A fragment of helm's error output that names the problem. */
  readonly error: RegExp;
}

export const INVALID_VALUES: readonly InvalidValuesCase[] = [
  { name: 'negative replicas', stage: 'schema', values: { activator: { replicas: -1 } }, error: /at '\/activator\/replicas': minimum: got -1, want 1/ },
  {
    name: 'a public Ingress to an HTTP API without credentials',
    stage: 'render',
    values: { ingress: { kubernetesIngress: { enabled: true } } },
    error: /no credential is configured: set secrets.apiKeys/,
  },
  { name: 'an API key in plain text', stage: 'schema', values: { config: { auth: { apiKeys: [{ id: 'a', hash: 'my-secret-key' }] } } }, error: /auth\/apiKeys\/0\/hash/ },
  {
    name: 'a JWT public key without its algorithm',
    stage: 'render',
    values: { secrets: { jwtPublicKey: { secretName: 'idp', key: 'pem' } }, config: { auth: { jwt: { issuer: 'https://idp.example.com/', audience: 'a' } } } },
    error: /secrets.jwtPublicKey needs config.auth.jwt.algorithm/,
  },
  {
    name: 'a plain model API key',
    stage: 'schema',
    values: { config: { model: { provider: 'openai-compatible', openaiCompatible: { baseUrl: 'https://api.example.com/v1', apiKey: 'sk-live-0123456789' } } } },
    error: /additional propert(y|ies) 'apiKey' not allowed/,
  },
  { name: 'a plain NATS password at the top level', stage: 'schema', values: { natsPassword: 'hunter2' }, error: /additional propert(y|ies) 'natsPassword' not allowed/ },
  { name: 'a secret-looking plain environment variable', stage: 'schema', values: { effector: { env: { PAYMENTS_API_TOKEN: 'tok_0123456789' } } }, error: /PAYMENTS_API_TOKEN/ },
  { name: "an environment variable that would override the runtime's config", stage: 'schema', values: { activator: { env: { AGENTS_PARTITIONS: '4' } } }, error: /AGENTS_PARTITIONS/ },
  { name: 'a root user', stage: 'schema', values: { securityContext: { runAsUser: 0 } }, error: /securityContext\/runAsUser/ },
  { name: 'NATS creds without a Secret', stage: 'schema', values: { nats: { auth: { method: 'creds' } } }, error: /nats\/auth/ },
  {
    name: 'two sources for the agents volume',
    stage: 'schema',
    values: { agents: { volume: { enabled: true, mountPath: '/opt/agents', configMap: { name: 'a' }, volumeSource: { emptyDir: {} } } } },
    error: /agents\/volume/,
  },
  {
    name: 'a budget that keeps the only replica up',
    stage: 'render',
    values: { memoryStore: { replicas: 1, podDisruptionBudget: { enabled: true, minAvailable: 1 } } },
    error: /memoryStore\.podDisruptionBudget\.minAvailable \(1\) keeps all 1 replicas up/,
  },
  {
    name: 'a percentage budget that rounds up to every replica',
    stage: 'render',
    values: { ingress: { replicas: 2, podDisruptionBudget: { enabled: true, minAvailable: '60%' } } },
    error: /ingress\.podDisruptionBudget\.minAvailable \(60%\) keeps all 2 replicas up/,
  },
  {
    name: 'a budget that keeps the autoscaler minimum up',
    stage: 'render',
    values: { effector: { autoscaling: { enabled: true, minReplicas: 2, maxReplicas: 4 }, podDisruptionBudget: { enabled: true, minAvailable: 2 } } },
    error: /effector\.podDisruptionBudget\.minAvailable \(2\) keeps all 2 replicas up/,
  },
  {
    name: 'a grace period shorter than an activation',
    stage: 'render',
    values: { activator: { terminationGracePeriodSeconds: 10 } },
    error: /activator\.terminationGracePeriodSeconds \(10\) is shorter than the 45 s/,
  },
  {
    name: 'a signing key id without its Secret',
    stage: 'render',
    values: { config: { signing: { keyId: 'k1' } }, secrets: { keyring: { secretName: '' } } },
    error: /config\.signing\.keyId is set but secrets\.signingKey\.secretName is empty/,
  },
  {
    name: 'verification without a keyring',
    stage: 'render',
    values: { config: { effector: { verification: 'require' }, signing: { keyId: '' } }, secrets: { keyring: { secretName: '' } } },
    error: /config\.effector\.verification is require but secrets\.keyring\.secretName is empty/,
  },
  {
    name: 'element verification without a keyring',
    stage: 'render',
    values: { config: { effector: { verification: 'off' }, signing: { keyId: '' } }, secrets: { keyring: { secretName: '' } } },
    error: /config\.activator\.verification is require but secrets\.keyring\.secretName is empty/,
  },
  {
    name: 'verification without an active key id',
    stage: 'render',
    values: { config: { signing: { keyId: '' } } },
    error: /verification is on but config\.signing\.keyId is empty/,
  },
  {
    name: 'more autoscaled activators than partitions',
    stage: 'render',
    values: { config: { partitions: 4 }, activator: { autoscaling: { enabled: true, minReplicas: 2, maxReplicas: 8 } } },
    error: /activator\.autoscaling\.maxReplicas \(8\) exceeds config\.partitions \(4\)/,
  },
  { name: 'an openai-compatible model without a base URL', stage: 'schema', values: { config: { model: { provider: 'openai-compatible' } } }, error: /config\/model/ },
];
