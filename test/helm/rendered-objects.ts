/**
 * The documents `helm template` prints, parsed, with the few typed views the chart assertions
 * need (workloads, their pod specs and containers, label selectors). Fields are read loosely:
 * the Kubernetes schemas, not these types, decide what is well formed.
 */
import { parseAllDocuments } from 'yaml';

/** A rendered Kubernetes object. */
export interface K8sObject {
  readonly apiVersion: string;
  readonly kind: string;
  readonly metadata: { readonly name: string; readonly labels?: Record<string, string>; readonly annotations?: Record<string, string> };
  readonly [field: string]: unknown;
}

export interface EnvVar {
  readonly name: string;
  readonly value?: string;
  readonly valueFrom?: { readonly secretKeyRef?: { readonly name: string; readonly key: string }; readonly fieldRef?: unknown };
}

export interface Probe {
  readonly httpGet?: { readonly path: string; readonly port: string | number };
}

export interface SecurityContext {
  readonly runAsNonRoot?: boolean;
  readonly runAsUser?: number;
  readonly readOnlyRootFilesystem?: boolean;
  readonly allowPrivilegeEscalation?: boolean;
  readonly capabilities?: { readonly drop?: readonly string[] };
  readonly seccompProfile?: { readonly type: string };
}

export interface Container {
  readonly name: string;
  readonly env?: readonly EnvVar[];
  readonly ports?: readonly { readonly name?: string; readonly containerPort: number }[];
  readonly livenessProbe?: Probe;
  readonly readinessProbe?: Probe;
  readonly startupProbe?: Probe;
  readonly securityContext?: SecurityContext;
  readonly volumeMounts?: readonly { readonly name: string; readonly mountPath: string; readonly readOnly?: boolean }[];
}

export interface Volume {
  readonly name: string;
  readonly secret?: { readonly secretName: string; readonly items?: readonly { readonly key: string; readonly path: string }[] };
  readonly configMap?: { readonly name: string; readonly items?: readonly { readonly key: string; readonly path: string }[] };
  readonly emptyDir?: object;
}

export interface PodSpec {
  readonly containers: readonly Container[];
  readonly initContainers?: readonly Container[];
  readonly volumes?: readonly Volume[];
  readonly securityContext?: SecurityContext & { readonly fsGroup?: number };
  readonly automountServiceAccountToken?: boolean;
  readonly terminationGracePeriodSeconds?: number;
  readonly serviceAccountName?: string;
}

/** A Deployment or Job, with its pod template. */
export interface Workload extends K8sObject {
  readonly spec: {
    readonly replicas?: number;
    readonly selector?: { readonly matchLabels: Record<string, string> };
    readonly template: { readonly metadata: { readonly labels: Record<string, string> }; readonly spec: PodSpec };
  };
}

/** Parses a multi-document YAML stream, dropping empty documents; throws on a YAML error. */
export function parseRendered(text: string): K8sObject[] {
  const objects: K8sObject[] = [];
  for (const doc of parseAllDocuments(text)) {
    if (doc.errors.length > 0) throw new Error(`rendered YAML does not parse: ${doc.errors[0]!.message}`);
    const value: unknown = doc.toJS();
    if (value !== null && value !== undefined) objects.push(value as K8sObject);
  }
  return objects;
}

/** Every object of `kind`. */
export function ofKind<T extends K8sObject = K8sObject>(objects: readonly K8sObject[], kind: string): T[] {
  return objects.filter((o) => o.kind === kind) as T[];
}

/** The one object of `kind` named `name`; throws when there is none. */
export function named<T extends K8sObject = K8sObject>(objects: readonly K8sObject[], kind: string, name: string): T {
  const found = objects.find((o) => o.kind === kind && o.metadata.name === name);
  if (found === undefined) throw new Error(`no ${kind} named ${name} was rendered`);
  return found as T;
}

/** Every container of a pod spec, init containers included. */
export function allContainers(pod: PodSpec): Container[] {
  return [...(pod.initContainers ?? []), ...pod.containers];
}

/** Whether `selector` selects an object carrying `labels`. */
export function selects(selector: Record<string, string>, labels: Record<string, string> | undefined): boolean {
  return Object.entries(selector).every(([key, value]) => labels?.[key] === value);
}
