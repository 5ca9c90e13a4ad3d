import { useState } from 'preact/hooks';
import { api, ApiError } from '../api.js';
import { keyHref, prettyJson, relative, time } from '../format.js';
import { useNow, useView } from '../use-view.js';
import { Empty, Loading, ViewFrame } from './common.js';

interface Decision {
  approved: boolean;
  approver: string;
  reason: string;
  decidedAtMs: number;
}
interface Row {
  intentId: string;
  agent: string;
  key: string;
  keyToken: string;
  tool: string;
  argsJson: string;
  requestedAtMs: number;
  deadlineMs: number;
  status: 'pending' | 'expired' | 'approved' | 'denied';
  decision?: Decision;
  ignored?: Decision[];
}

const TOPICS = ['approvals'];

export function ApprovalsView(props: { operator: boolean }) {
  const { data, error, reload } = useView<Row[]>('approvals', TOPICS, 5_000);
  const now = useNow();
  const [message, setMessage] = useState<string | undefined>(undefined);
  const decide = async (row: Row, approved: boolean): Promise<void> => {
    try {
      await api('approvals/decide', { agent: row.agent, keyToken: row.keyToken, intentId: row.intentId, approved });
      setMessage(`${approved ? 'Approved' : 'Denied'} ${row.tool} for ${row.agent} ${row.key}.`);
    } catch (e) {
      setMessage(e instanceof ApiError ? `Not decided: ${e.message}` : String(e));
    }
    reload();
  };
  const pending = data?.filter((r) => r.status === 'pending') ?? [];
  const done = data?.filter((r) => r.status !== 'pending') ?? [];
  return (
    <ViewFrame title="Approvals" error={error} intro="Requests waiting for a human. The first decision wins; the page shows who decided.">
      <p role="status" aria-live="polite" class="status">
        {message ?? ''}
      </p>
      {!props.operator && <p class="note">You are signed in as a viewer: deciding needs the operator role.</p>}
      {data === undefined ? (
        <Loading />
      ) : (
        <>
          <h2>Pending ({pending.length})</h2>
          {pending.length === 0 ? (
            <Empty>Nothing waits for a decision.</Empty>
          ) : (
            <ul class="cards" aria-label="Pending approval requests">
              {pending.map((row) => (
                <li key={row.intentId} class="card" data-intent={row.intentId}>
                  <h3>
                    {row.tool} for <a href={keyHref(row.agent, row.key)}>{row.agent} / {row.key}</a>
                  </h3>
                  <p>
                    Deadline <strong>{relative(row.deadlineMs, now)}</strong> ({time(row.deadlineMs)}); requested {relative(row.requestedAtMs, now)}.
                  </p>
                  <pre aria-label="Arguments">{prettyJson(row.argsJson)}</pre>
                  {props.operator && (
                    <div class="actions">
                      <button type="button" class="primary" onClick={() => void decide(row, true)}>
                        Approve
                      </button>
                      <button type="button" class="danger" onClick={() => void decide(row, false)}>
                        Deny
                      </button>
                    </div>
                  )}
                </li>
              ))}
            </ul>
          )}
          <h2>Decided and expired</h2>
          {done.length === 0 ? (
            <Empty>None yet.</Empty>
          ) : (
            <table aria-label="Decided approval requests">
              <thead>
                <tr>
                  <th scope="col">Request</th>
                  <th scope="col">Key</th>
                  <th scope="col">Outcome</th>
                  <th scope="col">Decided by</th>
                  <th scope="col">When</th>
                </tr>
              </thead>
              <tbody>
                {done.map((row) => (
                  <tr key={row.intentId}>
                    <td>{row.tool}</td>
                    <td>
                      <a href={keyHref(row.agent, row.key)}>
                        {row.agent} / {row.key}
                      </a>
                    </td>
                    <td>{row.status}</td>
                    <td>{row.decision?.approver ?? '—'}{(row.ignored?.length ?? 0) > 0 ? ` (later decisions ignored: ${row.ignored?.map((d) => d.approver).join(', ')})` : ''}</td>
                    <td>{time(row.decision?.decidedAtMs ?? row.deadlineMs)}</td>
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
