import { setFlagsFromString } from 'node:v8';

/**
 * V8 flags every runtime service sets on itself as the first statement of its `main()`: flags
 * Node refuses in `NODE_OPTIONS` (so the image could not carry them as `SERVICE_NODE_FLAGS` are
 * carried), set from code so that `npm start`, the test harness, the bench, the image and the
 * chart all run with them without repeating them on five command lines.
 *
 * `--no-allocation-site-pretenuring`: V8 watches which object literals survive young-generation
 * collections and, once most from one site do, allocates that site's objects straight in the old
 * generation. Under a throughput burst (hundreds of activations in flight) the activation's own
 * short-lived objects qualify, and the decision outlives the burst: afterwards each of them is
 * born old, dies there, and until the next full collection keeps the young objects it points to
 * alive through every scavenge, so those are copied and promoted too. (That is the explanation
 * that fits the measurements; the decisions themselves were not seen: `--trace-pretenuring`
 * printed nothing.) In `npm run bench` the activator's heap grew by 4.2–4.7 MB per scavenge in
 * model-low-concurrency after model-throughput, with scavenges of 11–22 ms; without pretenuring by
 * 1.3–1.9 MB, with scavenges of 6–10 ms (docs/decisions/0085-no-allocation-site-pretenuring.md).
 *
 * Only the collector's placement of objects changes; no semantics depend on it, and redelivery,
 * replay and crash recovery are untouched.
 */
export const SERVICE_V8_FLAGS: readonly string[] = Object.freeze(['--no-allocation-site-pretenuring']);

/**
 * Sets {@link SERVICE_V8_FLAGS} on the running isolate. Call it before the service does any work:
 * V8 reads these flags when it decides where to allocate, so decisions already taken stay. Safe to
 * call twice (a flag set again keeps its value).
 */
export function applyServiceV8Flags(): void {
  for (const flag of SERVICE_V8_FLAGS) setFlagsFromString(flag);
}
