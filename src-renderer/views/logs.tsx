/**
 * Logs (`#/logs`): every tenant log the workstation has seen checkpoints of (issue 28,
 * docs/logs.md), with its log key, checkpoints, latest size and root, consistency, witnesses
 * and bundles; one log at `#/logs/<origin, URL-encoded>` with its checkpoint history and the
 * completeness of each bundle imported from it. A split view is an alert at the top of both.
 */
import type { LogDetail, LogView, SeenCheckpointView } from '../../src-shared/api/contract';
import { useApi } from '../api';
import { hrefFor } from '../router';
import {
  Code,
  EmptyState,
  ErrorNotice,
  Fields,
  Loading,
  Page,
  Panel,
  TableScroll,
  formatCount,
  formatInstant,
} from '../components/ui';
import {
  ConsistencyBadge,
  LogCompletenessLine,
  LogSignerBadge,
  ShortHash,
  SplitViewAlert,
  consistencyMeaning,
  periodWords,
  signerMeaning,
} from '../components/log-completeness';
import './logs.css';

/** The Logs page: the list at `#/logs`, one log at `#/logs/<origin>`. */
export function LogsView({ origin }: { origin: string | undefined }) {
  return origin === undefined || origin === '' ? <LogList /> : <LogDetailPage origin={origin} />;
}

function LogsEmpty() {
  return (
    <EmptyState title="No logs yet">
      A log arrives with its checkpoints. Import an evidence bundle from a service that logs its receipts (its{' '}
      <Code>log/checkpoint.txt</Code> and <Code>log/proofs.json</Code>) in <a href={hrefFor(['bundles'])}>Bundles</a>,
      or check a service’s log from the command line with <Code>evroom log check --api URL --tenant T</Code>. Each log
      then shows here with its checkpoints, whether they agree, and how complete each bundle from it is.
    </EmptyState>
  );
}

function witnesses(count: number): string {
  return count === 0 ? 'none' : `${formatCount(count)} ${count === 1 ? 'cosignature' : 'cosignatures'}`;
}

function LogList() {
  const logs = useApi('logs.list', undefined);
  const rows = logs.data ?? [];
  return (
    <Page
      title="Logs"
      subtitle="Each tenant of a service that logs its receipts has an append-only Merkle log. Its signed checkpoints show whether a bundle holds every receipt of its period, and whether the log kept one history."
    >
      {logs.error && (
        <ErrorNotice
          title="The logs could not be loaded"
          message={logs.error}
          hint={
            <button type="button" className="button button-secondary" onClick={logs.reload}>
              Try again
            </button>
          }
        />
      )}
      {!logs.data && !logs.error && <Loading label="Loading logs…" />}
      {logs.data && <SplitViewAlert logs={rows} />}
      {logs.data &&
        (rows.length === 0 ? (
          <Panel>
            <LogsEmpty />
          </Panel>
        ) : (
          <Panel title={`Logs seen (${formatCount(rows.length)})`}>
            <TableScroll label="Logs seen">
              <table className="table log-table" data-testid="log-table">
                <caption className="visually-hidden">Logs seen, split views first, then by origin</caption>
                <thead>
                  <tr>
                    <th scope="col">Log (origin) · key name</th>
                    <th scope="col">Log key</th>
                    <th scope="col" className="numeric">
                      Checkpoints
                    </th>
                    <th scope="col">Latest size · root</th>
                    <th scope="col">Consistency</th>
                    <th scope="col">Witnesses</th>
                    <th scope="col" className="numeric">
                      Bundles
                    </th>
                  </tr>
                </thead>
                <tbody>
                  {rows.map((log) => (
                    <LogRow key={log.origin} log={log} />
                  ))}
                </tbody>
              </table>
            </TableScroll>
          </Panel>
        ))}
    </Page>
  );
}

function LogRow({ log }: { log: LogView }) {
  return (
    <tr data-origin={log.origin} data-consistency={log.consistency}>
      <td className="log-origin-cell">
        <a href={hrefFor(['logs', log.origin])} className="log-origin">
          {log.origin}
        </a>
        <span className="muted log-key-name">key {log.key_name}</span>
      </td>
      <td>
        <LogSignerBadge signer={log.signer} />
      </td>
      <td className="numeric">{formatCount(log.checkpoints)}</td>
      <td className="nowrap">
        size {formatCount(log.latest.tree_size)} · <ShortHash hex={log.latest.root_hex} />
      </td>
      <td>
        <ConsistencyBadge consistency={log.consistency} />
      </td>
      <td className="nowrap">{witnesses(log.latest.cosignatures)}</td>
      <td className="numeric">{formatCount(log.bundles)}</td>
    </tr>
  );
}

/** A log's title: its tenant when the origin names one (`NAME/tenants/T`, the service's rule). */
function logTitle(origin: string): string {
  const tenant = /\/tenants\/([^/]+)$/.exec(origin)?.[1];
  return tenant === undefined ? 'Log' : `Log of tenant ${tenant}`;
}

function LogDetailPage({ origin }: { origin: string }) {
  const log = useApi('logs.detail', { origin }, origin);
  const back = (
    <a className="button button-secondary" href={hrefFor(['logs'])}>
      ← All logs
    </a>
  );
  return (
    <Page title={logTitle(origin)} subtitle={<Code>{origin}</Code>} actions={back}>
      {log.error && (
        <ErrorNotice
          title="This log could not be shown"
          message={log.error}
          hint={<a href={hrefFor(['logs'])}>See every log</a>}
        />
      )}
      {!log.data && !log.error && <Loading label="Loading the log…" />}
      {log.data && <LogDetailContent log={log.data} />}
    </Page>
  );
}

function LogDetailContent({ log }: { log: LogDetail }) {
  return (
    <>
      <SplitViewAlert logs={[log]} linked={false} />
      <Panel title="The log">
        <Fields
          rows={[
            ['Origin', <Code key="origin">{log.origin}</Code>],
            [
              'Log key',
              <span key="key">
                <LogSignerBadge signer={log.signer} /> <Code>{log.key_name}</Code>
                <span className="muted log-field-note">{signerMeaning(log.signer)}</span>
                {log.keys > 1 && (
                  <span className="muted log-field-note" data-testid="log-keys">
                    Checkpoints of this origin are signed by {formatCount(log.keys)} different keys. Consistency is
                    judged for each key on its own (for the pinned key&rsquo;s checkpoints when one is pinned): a key
                    that is not the service&rsquo;s cannot make a split view of its log.
                  </span>
                )}
              </span>,
            ],
            [
              'Latest checkpoint',
              <span key="latest">
                size {formatCount(log.latest.tree_size)}, root <Code>{log.latest.root_hex}</Code>
              </span>,
            ],
            [
              'Consistency',
              <span key="consistency">
                <ConsistencyBadge consistency={log.consistency} />
                <span className="muted log-field-note">{consistencyMeaning(log.consistency)}</span>
              </span>,
            ],
            ['Witnesses', witnesses(log.latest.cosignatures)],
            ['Checkpoints seen', formatCount(log.checkpoints)],
          ]}
        />
      </Panel>
      <Panel title={`Checkpoint history (${formatCount(log.history.length)})`}>
        <p className="muted log-intro">
          Every checkpoint of this log the workstation has seen, largest tree first, with the key that verified it (its
          note key id, as in the key&rsquo;s vkey).
        </p>
        <TableScroll label="Checkpoint history">
          <table className="table log-history" data-testid="log-history">
            <caption className="visually-hidden">Checkpoints of {log.origin}, largest tree first</caption>
            <thead>
              <tr>
                <th scope="col" className="numeric">
                  Tree size
                </th>
                <th scope="col">Root</th>
                <th scope="col">Signed by</th>
                <th scope="col">Seen first (UTC)</th>
                <th scope="col">Where</th>
                <th scope="col">Witnesses</th>
              </tr>
            </thead>
            <tbody>
              {log.history.map((checkpoint, index) => (
                <CheckpointRow
                  key={`${checkpoint.tree_size}-${checkpoint.root_hex}-${index}`}
                  checkpoint={checkpoint}
                />
              ))}
            </tbody>
          </table>
        </TableScroll>
        {log.history[0] && (
          <details className="log-note">
            <summary>The latest checkpoint as signed (C2SP signed note)</summary>
            <pre className="code-block" data-testid="log-note">
              {log.history[0].note}
            </pre>
          </details>
        )}
      </Panel>
      <Panel title={`Bundles from this log (${formatCount(log.bundles_detail.length)})`}>
        {log.bundles_detail.length === 0 ? (
          <p className="muted">
            No imported bundle carries evidence from this log: its checkpoints came from <Code>evroom log check</Code>{' '}
            or a context pack.
          </p>
        ) : (
          <TableScroll label="Bundles from this log">
            <table className="table log-bundles" data-testid="log-bundles">
              <caption className="visually-hidden">Imported bundles with evidence from {log.origin}</caption>
              <thead>
                <tr>
                  <th scope="col">Bundle</th>
                  <th scope="col">Imported (UTC)</th>
                  <th scope="col">Period</th>
                  <th scope="col">Completeness</th>
                </tr>
              </thead>
              <tbody>
                {log.bundles_detail.map((bundle) => (
                  <tr key={bundle.bundle_id} data-bundle-id={bundle.bundle_id} data-log-status={bundle.log.status}>
                    <td>
                      <a href={hrefFor(['bundles', bundle.bundle_id])}>
                        {bundle.file_name ?? `Bundle ${bundle.bundle_id}`}
                      </a>
                    </td>
                    <td className="nowrap">{formatInstant(bundle.imported_at)}</td>
                    <td>{periodWords(bundle.log.period)}</td>
                    <td>
                      <LogCompletenessLine log={bundle.log} />
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </TableScroll>
        )}
      </Panel>
    </>
  );
}

/** Where a checkpoint was seen, in words with a link when it is a bundle. */
function SourceCell({ source }: { source: string }) {
  const bundle = /^bundle:(\d+)$/.exec(source);
  if (bundle?.[1]) return <a href={hrefFor(['bundles', bundle[1]])}>bundle {bundle[1]}</a>;
  if (source.startsWith('api:')) return <span>fetched from {source.slice(4)}</span>;
  if (source.startsWith('context:')) return <span>context pack {source.slice(8)}</span>;
  return <span>{source}</span>;
}

function CheckpointRow({ checkpoint }: { checkpoint: SeenCheckpointView }) {
  return (
    <tr data-tree-size={checkpoint.tree_size} data-key-id={checkpoint.key_id}>
      <td className="numeric">{formatCount(checkpoint.tree_size)}</td>
      <td>
        <ShortHash hex={checkpoint.root_hex} />
      </td>
      <td className="nowrap">
        <span title={`${checkpoint.key_name}, note key id ${checkpoint.key_id}: ${signerMeaning(checkpoint.signer)}`}>
          <Code>{checkpoint.key_id}</Code> <LogSignerBadge signer={checkpoint.signer} />
        </span>
      </td>
      <td className="nowrap">{formatInstant(checkpoint.first_seen_at)}</td>
      <td className="log-source">
        <SourceCell source={checkpoint.source} />
      </td>
      <td className="nowrap">{witnesses(checkpoint.cosignatures)}</td>
    </tr>
  );
}
