import { useState } from 'preact/hooks';
import { seconds } from '../format.js';
import { useView } from '../use-view.js';
import { Empty, Loading, ViewFrame } from './common.js';

interface AgentsWindow {
  windowMs: number;
  coveredMs: number;
  agents: { agent: string; activations: number; perSecond: number; p50Seconds?: number; p99Seconds?: number; errorsByReason: Record<string, number> }[];
}
interface Agents {
  targets: { url: string; up: boolean; error?: string }[];
  windows: Record<'5m' | '1h', AgentsWindow>;
}

const TOPICS = ['outputs', 'errors'];

export function AgentsView() {
  const { data, error } = useView<Agents>('agents', TOPICS, 15_000);
  const [window, setWindow] = useState<'5m' | '1h'>('5m');
  const shown = data?.windows[window];
  return (
    <ViewFrame title="Agents" error={error} intro="Throughput, activation latency and errors per agent, from the services' /metrics.">
      <fieldset class="toggle">
        <legend>Window</legend>
        {(['5m', '1h'] as const).map((w) => (
          <label key={w}>
            <input type="radio" name="window" value={w} checked={window === w} onChange={() => setWindow(w)} /> {w === '5m' ? 'Last 5 minutes' : 'Last hour'}
          </label>
        ))}
      </fieldset>
      {shown === undefined ? (
        <Loading />
      ) : (
        <>
          <p class="note">
            Covers {Math.round(shown.coveredMs / 1000)} s of the {Math.round(shown.windowMs / 60_000)} min window (the console keeps readings since it started).
          </p>
          {shown.agents.length === 0 ? (
            <Empty>No activations or errors in this window.</Empty>
          ) : (
            <table>
              <thead>
                <tr>
                  <th scope="col">Agent</th>
                  <th scope="col" class="num">Activations</th>
                  <th scope="col" class="num">Per second</th>
                  <th scope="col" class="num">p50</th>
                  <th scope="col" class="num">p99</th>
                  <th scope="col">Errors by reason</th>
                </tr>
              </thead>
              <tbody>
                {shown.agents.map((a) => (
                  <tr key={a.agent}>
                    <th scope="row">{a.agent}</th>
                    <td class="num">{a.activations}</td>
                    <td class="num">{a.perSecond.toFixed(2)}</td>
                    <td class="num">{seconds(a.p50Seconds)}</td>
                    <td class="num">{seconds(a.p99Seconds)}</td>
                    <td>
                      {Object.entries(a.errorsByReason).length === 0
                        ? 'none'
                        : Object.entries(a.errorsByReason)
                            .map(([reason, n]) => `${reason}: ${n}`)
                            .join(', ')}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          )}
          <h2>Metrics sources</h2>
          <ul>
            {data?.targets.map((t) => (
              <li key={t.url}>
                {t.url}: {t.up ? 'answering' : <span class="warn">not answering{t.error !== undefined ? ` (${t.error})` : ''}</span>}
              </li>
            ))}
          </ul>
        </>
      )}
    </ViewFrame>
  );
}
