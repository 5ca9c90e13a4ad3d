import { relative } from '../format.js';
import { useNow, useView } from '../use-view.js';
import { Loading, ViewFrame } from './common.js';

interface Cluster {
  leaseTtlMs: number;
  partitions: { partition: number; owner: string | null; epoch: number | null; leaseExpiresAtMs: number | null; pending: number | null; ackPending: number | null }[];
  members: { id: string; info: Record<string, unknown>; lastHeartbeatMs: number; partitions: number }[];
  streams: { name: string; messages: number; bytes: number; consumers: { name: string; pending: number; ackPending: number }[] }[];
}

const TOPICS = ['cluster', 'outputs'];

export function ClusterView() {
  const { data, error } = useView<Cluster>('cluster', TOPICS, 5_000);
  const now = useNow();
  return (
    <ViewFrame title="Cluster" error={error} intro="Who owns each partition, until when, and how far its consumer is behind. Updates live from the lease and membership buckets.">
      {data === undefined ? (
        <Loading />
      ) : (
        <>
          <h2>Partitions</h2>
          <table>
            <caption class="sr-only">Partitions with owner, epoch, lease expiry and consumer lag</caption>
            <thead>
              <tr>
                <th scope="col">Partition</th>
                <th scope="col">Owner</th>
                <th scope="col">Epoch</th>
                <th scope="col">Lease expires</th>
                <th scope="col" class="num">Pending</th>
                <th scope="col" class="num">Ack pending</th>
              </tr>
            </thead>
            <tbody>
              {data.partitions.map((p) => (
                <tr key={p.partition}>
                  <th scope="row">{p.partition}</th>
                  <td>{p.owner ?? <span class="warn">unowned</span>}</td>
                  <td>{p.epoch ?? '—'}</td>
                  <td>{relative(p.leaseExpiresAtMs, now)}</td>
                  <td class="num">{p.pending ?? '—'}</td>
                  <td class="num">{p.ackPending ?? '—'}</td>
                </tr>
              ))}
            </tbody>
          </table>
          <h2>Members</h2>
          <table>
            <thead>
              <tr>
                <th scope="col">Member</th>
                <th scope="col">Agents</th>
                <th scope="col" class="num">Partitions</th>
                <th scope="col">Last heartbeat</th>
              </tr>
            </thead>
            <tbody>
              {data.members.map((m) => (
                <tr key={m.id}>
                  <th scope="row">{m.id}</th>
                  <td>{typeof m.info.agents === 'string' ? m.info.agents : '—'}</td>
                  <td class="num">{m.partitions}</td>
                  <td>{relative(m.lastHeartbeatMs, now)}</td>
                </tr>
              ))}
            </tbody>
          </table>
          <h2>Streams and consumer lag</h2>
          <table>
            <thead>
              <tr>
                <th scope="col">Stream</th>
                <th scope="col" class="num">Messages</th>
                <th scope="col">Consumer</th>
                <th scope="col" class="num">Pending</th>
                <th scope="col" class="num">Ack pending</th>
              </tr>
            </thead>
            <tbody>
              {data.streams.flatMap((s) =>
                (s.consumers.length === 0 ? [undefined] : s.consumers).map((c, i) => (
                  <tr key={`${s.name}/${c?.name ?? ''}`}>
                    {i === 0 ? <th scope="row">{s.name}</th> : <td />}
                    <td class="num">{i === 0 ? s.messages : ''}</td>
                    <td>{c?.name ?? '—'}</td>
                    <td class="num">{c?.pending ?? ''}</td>
                    <td class="num">{c?.ackPending ?? ''}</td>
                  </tr>
                )),
              )}
            </tbody>
          </table>
        </>
      )}
    </ViewFrame>
  );
}
