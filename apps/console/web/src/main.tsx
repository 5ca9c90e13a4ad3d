/**
 * The console's single page: sign-in (an API key or a JWT, checked by the server), then six
 * views behind hash routes (#/cluster, #/agents, #/keys, #/approvals, #/errors, #/erasure).
 * Actions show only for operators; the server enforces the role either way.
 */
import { render } from 'preact';
import { useEffect, useMemo, useState } from 'preact/hooks';
import { api, ApiError, followLive, storeCredential, storedCredential, type Me } from './api.js';
import { liveHub, LiveContext } from './live-context.js';
import { AgentsView } from './views/agents-view.js';
import { ApprovalsView } from './views/approvals-view.js';
import { ClusterView } from './views/cluster-view.js';
import { ErasureView } from './views/erasure-view.js';
import { ErrorsView } from './views/errors-view.js';
import { KeyView } from './views/key-view.js';
import './styles.css';

const VIEWS = [
  ['cluster', 'Cluster'],
  ['agents', 'Agents'],
  ['keys', 'Key inspector'],
  ['approvals', 'Approvals'],
  ['errors', 'Errors'],
  ['erasure', 'Erasure'],
] as const;
type ViewName = (typeof VIEWS)[number][0];

function currentView(): ViewName {
  const name = location.hash.replace(/^#\//, '').split('?')[0];
  return VIEWS.find(([id]) => id === name)?.[0] ?? 'cluster';
}

function SignIn(props: { onSignedIn: (me: Me) => void }) {
  const [credential, setCredential] = useState('');
  const [error, setError] = useState<string | undefined>(undefined);
  const submit = async (event: Event): Promise<void> => {
    event.preventDefault();
    try {
      const me = await api<Me>('me', undefined, credential.trim());
      storeCredential(credential.trim());
      props.onSignedIn(me);
    } catch (e) {
      setError(e instanceof ApiError && e.status === 401 ? 'That API key or token was not accepted.' : `Sign-in failed: ${String(e)}`);
    }
  };
  return (
    <main id="main" class="signin">
      <h1>nats-agents console</h1>
      <form onSubmit={(e) => void submit(e)}>
        <label for="credential">API key or JWT</label>
        <input id="credential" name="credential" type="password" autoComplete="current-password" value={credential} onInput={(e) => setCredential((e.target as HTMLInputElement).value)} required />
        <p class="note">Kept in this browser tab only, and sent with each request.</p>
        {error !== undefined && (
          <p role="alert" class="error">
            {error}
          </p>
        )}
        <button type="submit" class="primary">
          Sign in
        </button>
      </form>
    </main>
  );
}

function App() {
  const [me, setMe] = useState<Me | null | undefined>(undefined);
  const [view, setView] = useState<ViewName>(currentView());
  const [hash, setHash] = useState(location.hash);
  const hub = useMemo(() => liveHub(), []);
  useEffect(() => {
    const onHash = (): void => {
      setView(currentView());
      setHash(location.hash);
      document.getElementById('view-title')?.focus();
    };
    addEventListener('hashchange', onHash);
    return () => removeEventListener('hashchange', onHash);
  }, []);
  useEffect(() => {
    if (storedCredential() === null) return setMe(null);
    api<Me>('me')
      .then(setMe)
      .catch(() => {
        storeCredential(null);
        setMe(null);
      });
  }, []);
  useEffect(() => {
    if (me === null || me === undefined) return;
    const abort = new AbortController();
    void followLive((topic) => hub.publish(topic), abort.signal);
    return () => abort.abort();
  }, [me, hub]);
  if (me === undefined) return <p>Loading…</p>;
  if (me === null) return <SignIn onSignedIn={setMe} />;
  const operator = me.roles.includes('operator');
  return (
    <LiveContext.Provider value={hub}>
      <a class="skip" href="#main" onClick={(e) => { e.preventDefault(); document.getElementById('view-title')?.focus(); }}>
        Skip to content
      </a>
      <header>
        <span class="brand">nats-agents console</span>
        <nav aria-label="Views">
          <ul>
            {VIEWS.map(([id, label]) => (
              <li key={id}>
                <a href={`#/${id}`} aria-current={view === id ? 'page' : undefined}>
                  {label}
                </a>
              </li>
            ))}
          </ul>
        </nav>
        <span class="who">
          {me.id} ({operator ? 'operator' : 'viewer'}){' '}
          <button
            type="button"
            onClick={() => {
              storeCredential(null);
              setMe(null);
            }}
          >
            Sign out
          </button>
        </span>
      </header>
      <main id="main">
        {view === 'cluster' && <ClusterView />}
        {view === 'agents' && <AgentsView />}
        {view === 'keys' && <KeyView key={hash} />}
        {view === 'approvals' && <ApprovalsView operator={operator} />}
        {view === 'errors' && <ErrorsView operator={operator} />}
        {view === 'erasure' && <ErasureView operator={operator} />}
      </main>
    </LiveContext.Provider>
  );
}

const root = document.getElementById('app');
if (root !== null) render(<App />, root);
