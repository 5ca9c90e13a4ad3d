import type { JetStreamClient, JetStreamManager } from '@nats-io/jetstream';
import { Kvm, type KV } from '@nats-io/kv';
import { kvStreamName } from '#routing';

/**
 * Binds a KV bucket that provisioning created (never creates one), reading with direct gets when
 * its stream allows them.
 *
 * Why: `Kvm.open(name, { bindOnly: true })` reads nothing from the server, so the client assumes
 * `allow_direct: false` and every `kv.get` becomes a JetStream API request (`STREAM.MSG.GET`),
 * which the server answers from its API queue with the value base64-encoded in a JSON reply. A
 * direct get (`DIRECT.GET.<stream>.<subject>`) returns the stored message as it is. The buckets
 * `nats-agents provision` creates on nats-server 2.9+ allow direct gets, and the service users
 * already hold `DIRECT.GET` and `STREAM.INFO` on them (docs/helm.md). Against the 2.9.10 server of
 * this repository an ad-hoc loop of 20,000 gets of 700-byte values, 64 in flight (not kept), did
 * 12,700–14,600 direct gets/s against 9,900–10,400 through the API, at the same client CPU.
 *
 * A cold actor's load is one such get, so this is the read path of every key not in the actor
 * cache (decision 0077). The value and revision read are the same either way; a stale read (a
 * direct get answered by a lagging replica) can only be older, and the revision-checked commit
 * that follows refuses it, as for any lost race.
 *
 * On redelivery, replay or crash: nothing to say — binding holds no state; a restarted service
 * binds again and reads the stream's setting afresh. A bucket whose stream info cannot be read
 * (missing, or a user without `STREAM.INFO`) is bound as before, reading through the API, so the
 * failure surfaces where it did: at the first read or write.
 */
export async function bindBucket(js: JetStreamClient, jsm: JetStreamManager, name: string): Promise<KV> {
  const allowDirect = await jsm.streams.info(kvStreamName(name)).then(
    (info) => info.config.allow_direct === true,
    () => false,
  );
  return new Kvm(js).open(name, { bindOnly: true, allow_direct: allowDirect });
}
