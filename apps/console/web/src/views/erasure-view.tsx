import { useState } from 'preact/hooks';
import { api, ApiError } from '../api.js';
import { time } from '../format.js';
import { useView } from '../use-view.js';
import { Empty, Loading, ViewFrame } from './common.js';

interface Progress {
  requestId: string;
  entityKeySha256: string;
  requestedBy: string;
  startedAtMs: number;
  status: 'running' | 'erased' | 'failed';
  report?: { passes: number; erased: Record<string, number> };
  error?: string;
  retryable?: boolean;
}
interface Erasures {
  requests: Progress[];
  audit: { seq: number; requestId: string; entityKeySha256: string; requestedBy: string; requestedAtMs: number; completedAtMs: number; erased: string[] }[];
}

const TOPICS = ['erasures'];

export function ErasureView(props: { operator: boolean }) {
  const { data, error, reload } = useView<Erasures>('erasures', TOPICS, 5_000);
  const [key, setKey] = useState('');
  const [message, setMessage] = useState<string | undefined>(undefined);
  const submit = async (event: Event): Promise<void> => {
    event.preventDefault();
    if (!confirm(`Erase everything held about the key "${key}"? This cannot be undone.`)) return;
    try {
      await api('erasures', { key });
      setMessage('Erasure requested.');
      setKey('');
    } catch (e) {
      setMessage(e instanceof ApiError ? `Not requested: ${e.message}` : String(e));
    }
    reload();
  };
  return (
    <ViewFrame title="Erasure" error={error} intro="Erase an entity everywhere (state of every agent, intents, stream messages, long-term rows). The audit keeps only the key's sha256.">
      <p role="status" aria-live="polite" class="status">
        {message ?? ''}
      </p>
      {props.operator ? (
        <form class="inline" onSubmit={(e) => void submit(e)}>
          <label>
            Entity key <input name="erase-key" value={key} onInput={(e) => setKey((e.target as HTMLInputElement).value)} required autoComplete="off" />
          </label>
          <button type="submit" class="danger">
            Request erasure
          </button>
        </form>
      ) : (
        <p class="note">Requesting an erasure needs the operator role.</p>
      )}
      {data === undefined ? (
        <Loading />
      ) : (
        <>
          <h2>Requested from this console</h2>
          {data.requests.length === 0 ? (
            <Empty>None since the console started.</Empty>
          ) : (
            <ul>
              {data.requests.map((r) => (
                <li key={r.requestId}>
                  <code>{r.requestId}</code> by {r.requestedBy}: <strong>{r.status}</strong>
                  {r.report !== undefined && ` in ${r.report.passes} passes (${Object.entries(r.report.erased).map(([p, n]) => `${p} ${n}`).join(', ')})`}
                  {r.error !== undefined && ` — ${r.error}${r.retryable === true ? ' (safe to repeat)' : ''}`}
                </li>
              ))}
            </ul>
          )}
          <h2>Audit records</h2>
          {data.audit.length === 0 ? (
            <Empty>No erasure has been recorded.</Empty>
          ) : (
            <table>
              <thead>
                <tr>
                  <th scope="col">Request</th>
                  <th scope="col">Entity (sha256)</th>
                  <th scope="col">Requested by</th>
                  <th scope="col">Completed</th>
                  <th scope="col">Erased</th>
                </tr>
              </thead>
              <tbody>
                {data.audit.map((a) => (
                  <tr key={a.seq}>
                    <td>{a.requestId}</td>
                    <td>
                      <code>{a.entityKeySha256.slice(0, 16)}…</code>
                    </td>
                    <td>{a.requestedBy}</td>
                    <td>{time(a.completedAtMs)}</td>
                    <td>{a.erased.join(', ')}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          )}
        </>
      )}
    </ViewFrame>
  );
}
