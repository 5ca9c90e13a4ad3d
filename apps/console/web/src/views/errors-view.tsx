import { useState } from 'preact/hooks';
import { api, ApiError } from '../api.js';
import { keyHref, relative, time } from '../format.js';
import { useNow, useView } from '../use-view.js';
import { Empty, Loading, ViewFrame } from './common.js';

interface Group {
  agent: string;
  reason: string;
  count: number;
  redrivable: number;
  lastStoredAtMs: number;
  records: { seq: number; detail: string; key: string; keyToken: string; eventTimeMs: number; storedAtMs: number; redrivable: boolean }[];
}

const TOPICS = ['errors'];

export function ErrorsView(props: { operator: boolean }) {
  const { data, error, reload } = useView<Group[]>('errors', TOPICS, 10_000);
  const now = useNow();
  const [message, setMessage] = useState<string | undefined>(undefined);
  const redrive = async (group: Group): Promise<void> => {
    if (!confirm(`Re-publish the original events of ${group.redrivable} ${group.agent} ${group.reason} record(s) to their keys?`)) return;
    try {
      const report = await api<{ published: number; alreadyRedriven: number; skipped: unknown[] }>('errors/redrive', { agent: group.agent, reason: group.reason });
      setMessage(`Redrove ${report.published} event(s); ${report.alreadyRedriven} already redriven; ${report.skipped.length} skipped.`);
    } catch (e) {
      setMessage(e instanceof ApiError ? `Redrive failed: ${e.message}` : String(e));
    }
    reload();
  };
  return (
    <ViewFrame title="Errors" error={error} intro="Error records of the last day, grouped by agent and reason.">
      <p role="status" aria-live="polite" class="status">
        {message ?? ''}
      </p>
      {data === undefined ? (
        <Loading />
      ) : data.length === 0 ? (
        <Empty>No error records in the last day.</Empty>
      ) : (
        data.map((group) => (
          <section key={`${group.agent}/${group.reason}`} class="card" aria-label={`${group.agent} ${group.reason}`}>
            <h2>
              {group.agent}: {group.reason} <span class="count">{group.count}</span>
            </h2>
            <p class="meta">Last {relative(group.lastStoredAtMs, now)}.</p>
            {props.operator && group.redrivable > 0 && (
              <button type="button" onClick={() => void redrive(group)}>
                Redrive {group.redrivable} event(s)
              </button>
            )}
            <table>
              <thead>
                <tr>
                  <th scope="col">Key</th>
                  <th scope="col">Detail</th>
                  <th scope="col">Stored</th>
                </tr>
              </thead>
              <tbody>
                {group.records.map((r) => (
                  <tr key={r.seq}>
                    <td>{r.keyToken === '' ? '(no key)' : <a href={keyHref(group.agent, r.key)}>{r.key}</a>}</td>
                    <td>{r.detail === '' ? '—' : r.detail}</td>
                    <td>{time(r.storedAtMs)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </section>
        ))
      )}
    </ViewFrame>
  );
}
