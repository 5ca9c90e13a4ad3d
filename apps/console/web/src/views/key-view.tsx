import { useState } from 'preact/hooks';
import { bytes, keyHref, prettyJson, time } from '../format.js';
import { useView } from '../use-view.js';
import { Empty, ViewFrame } from './common.js';

interface BytesView {
  bytes: number;
  text?: string;
  hex?: string;
}
interface Inspection {
  agent: string;
  key: string;
  keyToken: string;
  partition: number;
  traceUrl?: string;
  state: null | {
    revision: number;
    seq: number;
    lastAppliedSeq: number;
    ownerEpoch: number;
    memoryBytes: number;
    memory: { key: string; value: BytesView; lastAccessMs: number }[];
    replayCache: { cacheKey: string; bytes: number; digestOnly: boolean }[];
    continuation: null | { seq: number; pendingIntentIds: string[]; deadlineMs: number; snapshotBytes: number; traceId: string };
    pending: { intentId: string; tool: string; kind: string; argsJson: string; expiresAtMs: number }[];
    outbox: { subject: string; msgId: string; payload: BytesView }[];
    timers: { timerId: string; kind: string; dueAtMs: number }[];
    deferred: { inboxSeq: number; event: BytesView; eventTimeMs: number }[];
  };
  outputs: { seq: number; activationSeq?: string; storedAtMs: number; body: BytesView }[];
  errors: { seq: number; reason: string; detail: string; eventTimeMs: number }[];
}

function Bytes(props: { value: BytesView }) {
  if (props.value.text !== undefined) return <pre>{prettyJson(props.value.text)}</pre>;
  return (
    <span>
      {bytes(props.value.bytes)} binary, starts {props.value.hex}
    </span>
  );
}

function params(): { agent: string; key: string } {
  const query = new URLSearchParams(location.hash.split('?')[1] ?? '');
  return { agent: query.get('agent') ?? '', key: query.get('key') ?? '' };
}

export function KeyView() {
  const initial = params();
  const [agent, setAgent] = useState(initial.agent);
  const [key, setKey] = useState(initial.key);
  const path = initial.agent !== '' && initial.key !== '' ? `keys/${encodeURIComponent(initial.agent)}?key=${encodeURIComponent(initial.key)}` : null;
  const { data, error } = useView<Inspection>(path, ['outputs', 'errors', 'approvals'], 10_000);
  const shown = path === null ? undefined : data;
  const submit = (event: Event): void => {
    event.preventDefault();
    location.hash = keyHref(agent.trim(), key);
  };
  return (
    <ViewFrame title="Key inspector" error={path === null ? undefined : error} intro="Find a key by agent and key as you would type it; the console encodes the canonical key token.">
      <form class="inline" onSubmit={submit}>
        <label>
          Agent <input name="agent" value={agent} onInput={(e) => setAgent((e.target as HTMLInputElement).value)} required autoComplete="off" />
        </label>
        <label>
          Key <input name="key" value={key} onInput={(e) => setKey((e.target as HTMLInputElement).value)} required autoComplete="off" />
        </label>
        <button type="submit">Inspect</button>
      </form>
      {shown !== undefined && (
        <>
          <dl class="facts">
            <dt>Canonical key token</dt>
            <dd>
              <code>{shown.keyToken}</code>
            </dd>
            <dt>Partition</dt>
            <dd>{shown.partition}</dd>
            <dt>Trace</dt>
            <dd>{shown.traceUrl !== undefined ? <a href={shown.traceUrl} target="_blank" rel="noreferrer noopener">Open in Jaeger</a> : 'no trace link configured'}</dd>
          </dl>
          <h2>Committed state</h2>
          {shown.state === null ? (
            <Empty>No committed state for this key.</Empty>
          ) : (
            <>
              <dl class="facts" aria-label="Committed state summary">
                <dt>Seq</dt>
                <dd data-testid="state-seq">{shown.state.seq}</dd>
                <dt>Last applied inbox seq</dt>
                <dd>{shown.state.lastAppliedSeq}</dd>
                <dt>Owner epoch</dt>
                <dd>{shown.state.ownerEpoch}</dd>
                <dt>Revision</dt>
                <dd>{shown.state.revision}</dd>
                <dt>Suspended</dt>
                <dd>{shown.state.continuation === null ? 'no' : `yes, waiting for ${shown.state.continuation.pendingIntentIds.join(', ')} until ${time(shown.state.continuation.deadlineMs)}`}</dd>
              </dl>
              <h3>Working memory ({bytes(shown.state.memoryBytes)})</h3>
              {shown.state.memory.length === 0 ? (
                <Empty>Empty.</Empty>
              ) : (
                <table>
                  <thead>
                    <tr>
                      <th scope="col">Entry</th>
                      <th scope="col">Value</th>
                    </tr>
                  </thead>
                  <tbody>
                    {shown.state.memory.map((m) => (
                      <tr key={m.key}>
                        <th scope="row">{m.key}</th>
                        <td>
                          <Bytes value={m.value} />
                        </td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              )}
              <h3>Replay cache</h3>
              {shown.state.replayCache.length === 0 ? <Empty>No cached model responses.</Empty> : <ul>{shown.state.replayCache.map((c) => <li key={c.cacheKey}><code>{c.cacheKey}</code>: {bytes(c.bytes)}{c.digestOnly ? ' (digest only)' : ''}</li>)}</ul>}
              <h3>Pending intents</h3>
              {shown.state.pending.length === 0 ? <Empty>None.</Empty> : <ul>{shown.state.pending.map((p) => <li key={p.intentId}>{p.kind} {p.tool} <code>{p.intentId}</code>, expires {time(p.expiresAtMs)}<pre>{prettyJson(p.argsJson)}</pre></li>)}</ul>}
              <h3>Outbox</h3>
              {shown.state.outbox.length === 0 ? <Empty>Nothing owed.</Empty> : <ul>{shown.state.outbox.map((o) => <li key={o.msgId}><code>{o.subject}</code> <Bytes value={o.payload} /></li>)}</ul>}
              <h3>Timers</h3>
              {shown.state.timers.length === 0 ? <Empty>None.</Empty> : <ul>{shown.state.timers.map((t) => <li key={t.timerId}>{t.kind} at {time(t.dueAtMs)}</li>)}</ul>}
              <h3>Deferred events</h3>
              {shown.state.deferred.length === 0 ? <Empty>None.</Empty> : <ul>{shown.state.deferred.map((d) => <li key={d.inboxSeq}>inbox seq {d.inboxSeq}: <Bytes value={d.event} /></li>)}</ul>}
            </>
          )}
          <h2>Recent outputs</h2>
          {shown.outputs.length === 0 ? (
            <Empty>No outputs.</Empty>
          ) : (
            <ol class="records" aria-label="Recent outputs">
              {shown.outputs.map((o) => (
                <li key={o.seq}>
                  <span class="meta">output seq {o.activationSeq ?? '?'}, stored {time(o.storedAtMs)}</span>
                  <Bytes value={o.body} />
                </li>
              ))}
            </ol>
          )}
          <h2>Error records</h2>
          {shown.errors.length === 0 ? (
            <Empty>No error records in the last day.</Empty>
          ) : (
            <ul>
              {shown.errors.map((e) => (
                <li key={e.seq}>
                  <strong>{e.reason}</strong> {e.detail}
                </li>
              ))}
            </ul>
          )}
        </>
      )}
    </ViewFrame>
  );
}
