import { useEffect, useState } from 'react';
import type { AppInfo } from '../src-shared/api/contract';
import { createClient } from './transport';

const { client, transport } = createClient();

/** The app shell. The auditor's views arrive with the desktop-app issue; this page proves the transport. */
export function App() {
  const [info, setInfo] = useState<AppInfo | null>(null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    client.info(undefined).then(setInfo, (reason: unknown) => setError(reason instanceof Error ? reason.message : String(reason)));
  }, []);
  return (
    <main className="shell">
      <header className="shell-header">
        <h1>Evidence Room</h1>
        <p className="subtitle">Verification and audit workstation</p>
      </header>
      <section className="panel" aria-live="polite">
        {info && (
          <p data-testid="connection">
            Connected over {transport === 'ipc' ? 'IPC' : 'local HTTP'} · version {info.version} · data folder <code>{info.dataDirectory}</code>
          </p>
        )}
        {error && <p role="alert" className="error">Could not reach the app: {error}</p>}
        {!info && !error && <p>Connecting…</p>}
      </section>
    </main>
  );
}
