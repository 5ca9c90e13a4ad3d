/**
 * uuid v5 namespaces for derived ids (invariant 2). Changing any of them changes every id a
 * replay mints, so the effector and the stream would no longer deduplicate: a change needs a
 * state schema version bump and a migration note.
 */
export const IdNamespace = {
  /** Tool and approval intents; the same value as beam-agents so ids agree across runtimes. */
  Intent: '6f3e9d2a-1c47-5b8e-9a10-2d4f6b8c0e11',
  /** Trace and span ids; the same value as beam-agents. */
  Trace: 'b1d7c4e2-93a6-5f08-8c31-7e5a9d0f2b46',
  /** Outputs of a committed activation. */
  Output: '0d4f1c7a-5b2e-5e39-a6c8-3f1e9b7d2c50',
  /** Error records of an element. */
  ErrorRecord: '5a9e3b21-7c64-5d0f-b18e-42c7a6f9d013',
  /** Ingest-to-inbox forwarding by ingress. */
  Ingest: '9c2b7e14-3a58-5f61-8d47-b6e0c3a1f725',
  /** Timer firings published into a key's lane. */
  Timer: 'e3a71c59-0b2d-5c84-9f16-7d5b28e4a930',
  /** Re-publications of dead-lettered events by `errors redrive`. */
  Redrive: '4b8d2f60-6e1a-5c37-a9d4-0f5c7e3b9a82',
  /** Replay journal messages of completed activations (decision 0073). */
  Journal: 'c7e24a91-3d5f-5b08-b6a2-19f4e8d0c357',
} as const;
