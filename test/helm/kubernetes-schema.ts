/**
 * Offline validation of a rendered object against the Kubernetes OpenAPI schemas shipped in
 * kubernetes-models (and the Prometheus Operator's for ServiceMonitor). An apiVersion/kind with no
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

/** Validates `object`; rejects with the schema's message (naming the field) when it is invalid. */
export async function validateKubernetesObject(object: K8sObject): Promise<void> {
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
