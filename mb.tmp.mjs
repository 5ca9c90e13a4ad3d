import { ingestRootIds } from './dist/libs/telemetry/src/tracing/ingest-root-ids.js';
import { hash } from 'node:crypto';
const N = 2_000_000;
let sink = 0;
function old(stream, seq) { const d = hash('sha256', ['ingest', stream, seq].join('|'), 'hex'); return { traceId: d.slice(0, 32), spanId: d.slice(32, 48) }; }
for (let round = 0; round < 3; round++) {
  let t = process.hrtime.bigint();
  for (let i = 1; i <= N; i++) sink += old('AGENTS_INGEST', i).traceId.length;
  const a = Number(process.hrtime.bigint() - t) / N;
  t = process.hrtime.bigint();
  for (let i = 1; i <= N; i++) sink += ingestRootIds('AGENTS_INGEST', i).traceId.length;
  const b = Number(process.hrtime.bigint() - t) / N;
  console.log(`sha256: ${a.toFixed(0)} ns, fmix: ${b.toFixed(0)} ns`);
}
// uniqueness & distribution sanity
const seen = new Set(); let ones = 0;
for (let i = 1; i <= 200000; i++) { const id = ingestRootIds('AGENTS_INGEST', i).traceId; seen.add(id); ones += parseInt(id[5], 16) & 1; }
console.log('unique', seen.size, 'bit balance', ones / 200000, sink > 0);
