/**
 * Offline validation of a rendered object against the Kubernetes OpenAPI schemas shipped in
 * kubernetes-models (the Prometheus Operator's for ServiceMonitor and PrometheusRule; KEDA's
 * ScaledObject by its CRD's required fields). An apiVersion/kind with no
 * model is an error: every object the chart renders must be checked, none skipped.
 */
import type { K8sObject } from './rendered-objects.js';

interface Model {
  validate(): void;
}
type ModelClass = new (data: object) => Model;

const cache = new Map<string, ModelClass>();

function modulePath(apiVersion: string, kind: string): string {
  if (apiVersion.startsWith('monitoring.coreos.com/')) return `@kubernetes-models/prometheus-operator/${apiVersion}/${kind}`;
  return `kubernetes-models/${apiVersion}/${kind}`;
}

/**
 * KEDA's ScaledObject (keda.sh/v1alpha1), checked against the fields its CRD requires and types:
 * no schema package for it supports Node 20 (@kubernetes-models/keda 2 needs Node 22).
 */
function validateScaledObject(object: K8sObject): void {
  const problems: string[] = [];
  const spec = (object as K8sObject & { spec?: Record<string, unknown> }).spec;
  if (typeof spec !== 'object' || spec === null) throw new Error(`ScaledObject/${object.metadata.name} is invalid: spec is required`);
  const target = spec.scaleTargetRef as { name?: unknown; kind?: unknown } | undefined;
  if (typeof target?.name !== 'string' || target.name === '') problems.push('spec.scaleTargetRef.name must be a non-empty string');
  if (target?.kind !== undefined && typeof target.kind !== 'string') problems.push('spec.scaleTargetRef.kind must be a string');
  for (const field of ['minReplicaCount', 'maxReplicaCount', 'pollingInterval', 'cooldownPeriod']) {
    const value = spec[field];
    if (value !== undefined && (!Number.isInteger(value) || (value as number) < 0)) problems.push(`spec.${field} must be a non-negative integer`);
  }
  if (typeof spec.minReplicaCount === 'number' && typeof spec.maxReplicaCount === 'number' && spec.minReplicaCount > spec.maxReplicaCount) problems.push('spec.minReplicaCount exceeds spec.maxReplicaCount');
  const triggers = spec.triggers;
  if (!Array.isArray(triggers) || triggers.length === 0) problems.push('spec.triggers must be a non-empty array');
  else
    triggers.forEach((trigger: { type?: unknown; metadata?: unknown }, i) => {
      if (typeof trigger.type !== 'string' || trigger.type === '') problems.push(`spec.triggers[${i}].type must be a non-empty string`);
      if (typeof trigger.metadata !== 'object' || trigger.metadata === null) problems.push(`spec.triggers[${i}].metadata is required`);
      else for (const [key, value] of Object.entries(trigger.metadata)) if (typeof value !== 'string') problems.push(`spec.triggers[${i}].metadata.${key} must be a string`);
    });
  if (problems.length > 0) throw new Error(`ScaledObject/${object.metadata.name} is invalid: ${problems.join('; ')}`);
}

/** Validates `object`; rejects with the schema's message (naming the field) when it is invalid. */
export async function validateKubernetesObject(object: K8sObject): Promise<void> {
  if (object.apiVersion === 'keda.sh/v1alpha1' && object.kind === 'ScaledObject') return validateScaledObject(object);
  const path = modulePath(object.apiVersion, object.kind);
  let model = cache.get(path);
  if (model === undefined) {
    let loaded: Record<string, unknown>;
    try {
      loaded = (await import(path)) as Record<string, unknown>;
    } catch (error) {
      throw new Error(`no schema for ${object.apiVersion} ${object.kind} (${path}): ${(error as Error).message}`, { cause: error });
    }
    model = loaded[object.kind] as ModelClass;
    cache.set(path, model);
  }
  try {
    new model(object).validate();
  } catch (error) {
    throw new Error(`${object.kind}/${object.metadata.name} is invalid: ${(error as Error).message}`, { cause: error });
  }
}
