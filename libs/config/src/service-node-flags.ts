/**
 * The Node flags every runtime service runs with: `npm start`, the test harness, the bench and (as
 * `NODE_OPTIONS` in the Dockerfile, so also the chart) the image.
 *
 * `--max-semi-space-size=64` (MiB, against V8's 16 by default): an activation allocates a few
 * kilobytes that die young, and with 512 elements in flight per partition a small young generation
 * is scavenged while most of them are still alive, so they are copied, promoted and collected
 * again by the old-generation collector. A 64 MiB semi-space let the activator's garbage
 * collection fall from 25 % to 14 % of its busy time in `npm run bench` (no-op throughput), for at
 * most 128 MiB more resident memory under load (docs/decisions/0066-service-node-flags.md).
 * Nothing about redelivery, replay or crashes depends on it.
 *
 * V8 flags that Node refuses in `NODE_OPTIONS` are not here: each service sets them on itself
 * (`SERVICE_V8_FLAGS`, decision 0085).
 */
export const SERVICE_NODE_FLAGS: readonly string[] = Object.freeze(['--max-semi-space-size=64']);
