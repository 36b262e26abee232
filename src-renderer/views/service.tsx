/**
 * The Service view: the HTTP service run inside this app (start, stop, its address), its
 * tenants with their quota use, their API keys (issued and shown once, revoked after a
 * confirmation), the payments for API keys bought on chain (and, on the embedded development
 * chain, a form that buys one with test tokens), and the requests it answered last with their
 * status codes.
 *
 * The service listens on 127.0.0.1 only when started from here, so it is for trying it on this
 * machine; `evroom serve --host` serves other machines.
 */
import { useCallback, useEffect, useState } from 'react';
import type { ServiceRequest, ServiceStatus } from '../../src-shared/api/contract';
import { api, errorMessage } from '../api';
import { Button, Code, EmptyState, ErrorNotice, Loading, Page, Panel, formatInstant } from '../components/ui';
import { CopyButton } from '../components/receipts-shared';
import { ServiceAccounts } from '../components/service-accounts';
import { ServicePayments } from '../components/service-payments';
import './service.css';

/** How often the view asks for the last requests (quota use, payments) while the service runs. */
const REFRESH_MS = 3000;

/** A status code's class, for its colour; the number itself always says it. */
function statusClass(status: number): 'good' | 'neutral' | 'warn' | 'bad' {
  if (status >= 500) return 'bad';
  if (status >= 400) return 'warn';
  if (status >= 300) return 'neutral';
  return 'good';
}

/** The last requests, newest first. */
function RequestsTable({ requests }: { requests: ServiceRequest[] }) {
  return (
    <div className="table-scroll">
      <table className="table service-requests" data-testid="service-requests">
        <thead>
          <tr>
            <th scope="col">Time (UTC)</th>
            <th scope="col">Method</th>
            <th scope="col">Route</th>
            <th scope="col">Status</th>
            <th scope="col" className="numeric">
              ms
            </th>
          </tr>
        </thead>
        <tbody>
          {requests.map((request, index) => (
            <tr key={`${request.at}-${index}`} data-status={request.status}>
              <td className="nowrap">{formatInstant(request.at)}</td>
              <td>
                <Code>{request.method}</Code>
              </td>
              <td>
                <Code>{request.route}</Code>
              </td>
              <td>
                <span className={`badge badge-${statusClass(request.status)} service-status-code`}>
                  {request.status}
                </span>
              </td>
              <td className="numeric">{request.ms.toFixed(1)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

/** The Service page. */
export function ServiceView() {
  const [status, setStatus] = useState<ServiceStatus | undefined>(undefined);
  const [loadError, setLoadError] = useState<string | undefined>(undefined);
  const [port, setPort] = useState('');
  const [portError, setPortError] = useState<string | undefined>(undefined);
  const [actionError, setActionError] = useState<string | undefined>(undefined);
  const [busy, setBusy] = useState(false);
  // Bumped to make the tenants panel re-read quota use while requests come in.
  const [accountsGeneration, setAccountsGeneration] = useState(0);

  const refresh = useCallback(async (): Promise<void> => {
    try {
      setStatus(await api['service.status']());
      setLoadError(undefined);
    } catch (reason) {
      setLoadError(errorMessage(reason));
    }
  }, []);

  useEffect(() => {
    void refresh();
  }, [refresh]);

  const running = status?.running === true;
  useEffect(() => {
    if (!running) return;
    const timer = window.setInterval(() => {
      void refresh();
      setAccountsGeneration((value) => value + 1);
    }, REFRESH_MS);
    return () => window.clearInterval(timer);
  }, [running, refresh]);

  const start = async (): Promise<void> => {
    const text = port.trim();
    if (text !== '' && (!/^\d{1,5}$/.test(text) || Number(text) > 65535)) {
      setPortError('A port is a whole number from 0 to 65535; leave it empty for any free port.');
      return;
    }
    setBusy(true);
    setActionError(undefined);
    setPortError(undefined);
    try {
      setStatus(await api['service.start'](text === '' ? {} : { port: Number(text) }));
    } catch (reason) {
      const failure = reason as { code?: unknown; details?: { path: string }[] };
      const message = `${errorMessage(reason)}${typeof failure.code === 'string' ? ` (${failure.code})` : ''}`;
      if (failure.details?.some((detail) => detail.path === '/port')) setPortError(message);
      else setActionError(message);
    } finally {
      setBusy(false);
    }
  };

  const stop = async (): Promise<void> => {
    setBusy(true);
    setActionError(undefined);
    try {
      setStatus(await api['service.stop']());
    } catch (reason) {
      setActionError(errorMessage(reason));
    } finally {
      setBusy(false);
    }
  };

  return (
    <Page
      title="Service"
      subtitle={
        <>
          The HTTP service, run inside this app on 127.0.0.1: tenants, their API keys, and what it answered. To serve
          other machines, use <Code>evroom serve --host</Code> instead.
        </>
      }
      actions={
        status &&
        (running ? (
          <Button variant="danger" onClick={() => void stop()} disabled={busy}>
            {busy ? 'Stopping…' : 'Stop service'}
          </Button>
        ) : (
          <Button variant="primary" onClick={() => void start()} disabled={busy}>
            {busy ? 'Starting…' : 'Start service'}
          </Button>
        ))
      }
    >
      {loadError && (
        <ErrorNotice
          title="The service’s state could not be read"
          message={loadError}
          hint="Check that the app is still running, then reload the page."
        />
      )}
      {actionError && <ErrorNotice title="The service could not be started or stopped" message={actionError} />}

      <Panel title="Status" className="service-status-panel">
        {status && (
          <p className="service-store" data-testid="service-store" data-engine={status.store.engine}>
            Store:{' '}
            {status.store.engine === 'postgres' ? (
              <>
                PostgreSQL <Code>{status.store.where}</Code>
              </>
            ) : (
              'SQLite, this workspace’s ledger'
            )}{' '}
            <span className="muted">(Settings, “Service database”)</span>
          </p>
        )}
        {!status ? (
          !loadError && <Loading label="Reading the service’s state…" />
        ) : running ? (
          <div className="service-running" data-testid="service-state" data-running="true">
            <span className="badge badge-good badge-large">
              <span aria-hidden="true" className="badge-icon">
                ●
              </span>{' '}
              running
            </span>
            <span className="service-url">
              <Code>
                <span data-testid="service-url">{status.url}</span>
              </Code>
              {status.url && <CopyButton text={status.url} label="Copy" what="the service’s URL" />}
            </span>
            <p className="muted service-hint">
              Send requests with an API key: <Code>Authorization: Bearer svc_…</Code>. The routes are listed at{' '}
              <Code>{`${status.url ?? ''}/openapi.json`}</Code>.
            </p>
          </div>
        ) : (
          <div className="service-stopped" data-testid="service-state" data-running="false">
            <span className="badge badge-neutral badge-large">
              <span aria-hidden="true" className="badge-icon">
                ○
              </span>{' '}
              stopped
            </span>
            <div className={`service-port${portError ? ' pin-field-invalid' : ''}`}>
              <label htmlFor="service-port">Port (optional)</label>
              <input
                id="service-port"
                type="text"
                inputMode="numeric"
                value={port}
                placeholder="any free port"
                aria-invalid={portError ? true : undefined}
                aria-describedby={portError ? 'service-port-error' : 'service-port-hint'}
                onChange={(event) => {
                  setPort(event.currentTarget.value);
                  setPortError(undefined);
                }}
              />
              {portError ? (
                <p className="field-error" id="service-port-error" role="alert">
                  <span aria-hidden="true">✗ </span>
                  {portError}
                </p>
              ) : (
                <p className="field-hint" id="service-port-hint">
                  Empty: any free port. It listens on 127.0.0.1 only.
                </p>
              )}
            </div>
          </div>
        )}
      </Panel>

      <ServiceAccounts generation={accountsGeneration} />

      <ServicePayments status={status} generation={accountsGeneration} />

      <Panel title="Last requests">
        {!status ? (
          !loadError && <Loading label="Loading the last requests…" />
        ) : status.requests.length === 0 ? (
          <EmptyState title="No requests yet">
            {running
              ? 'Requests to the service appear here within a few seconds, newest first, with their status codes.'
              : 'Start the service; the requests it answers appear here.'}
          </EmptyState>
        ) : (
          <>
            {!running && (
              <p className="muted service-hint">From the last run; cleared when the service starts again.</p>
            )}
            <RequestsTable requests={status.requests} />
          </>
        )}
      </Panel>
    </Page>
  );
}
