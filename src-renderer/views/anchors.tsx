/**
 * Anchors (`#/anchors`): batches and anchor records with their state, filterable by state and
 * batch (in the URL, so a filtered list can be reloaded and shared); one record with its
 * Merkle path, transaction and steps at `#/anchors/:id`.
 *
 * States are what the ledger recorded (step 1 runs once after each import; "Check on chain"
 * runs steps 2-3), so paging never verifies anything per row.
 */
import { useEffect, useRef, useState } from 'react';
import { ANCHOR_STATES, type AnchorDetail, type AnchorRow, type AnchorState } from '../../src-shared/api/contract';
import { api, errorMessage, useApi } from '../api';
import { hrefFor, navigate } from '../router';
import { AnchorPanel, AnchorStateBadge, HashChip, anchorStateLabel } from '../components/anchor-panel';
import { AnchorCheckControl } from '../components/anchor-check-job';
import { Button, EmptyState, ErrorNotice, Loading, Page, Panel, formatCount, formatInstant } from '../components/ui';
import { CopyableValue } from '../components/copyable-value';
import './anchors.css';

const BATCH_PATTERN = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}Z$/;

/** The Anchors page: the lists at `#/anchors`, one record at `#/anchors/:id`. */
export function AnchorsView({ id, query }: { id: string | undefined; query: URLSearchParams }) {
  if (id !== undefined) return <AnchorDetailPage id={Number(id)} />;
  const stateParam = query.get('state');
  const state = (ANCHOR_STATES as readonly string[]).includes(stateParam ?? '')
    ? (stateParam as AnchorState)
    : undefined;
  const batchParam = query.get('batch');
  const batch = batchParam !== null && BATCH_PATTERN.test(batchParam) ? batchParam : undefined;
  return <AnchorLists state={state} batch={batch} />;
}

function filterHref(state: AnchorState | undefined, batch: string | undefined): string {
  return hrefFor(['anchors'], { state, batch });
}

function AnchorLists({ state, batch }: { state: AnchorState | undefined; batch: string | undefined }) {
  const batches = useApi('anchors.batches', { limit: 50 });
  // Bumped when a batch check ends, to reload the records it changed.
  const [reloads, setReloads] = useState(0);
  const totals = batches.data?.totals;
  const all = totals === undefined ? undefined : ANCHOR_STATES.reduce((sum, name) => sum + totals[name], 0);
  return (
    <Page
      title="Anchors"
      subtitle="Receipt hashes anchored on a chain in batches: each batch’s Merkle root is posted in one transaction. Step 1 runs offline after every import; “Check on chain” runs steps 2 and 3."
    >
      {batches.error && (
        <ErrorNotice
          title="The anchors could not be loaded"
          message={batches.error}
          hint={
            <button type="button" className="button button-secondary" onClick={batches.reload}>
              Try again
            </button>
          }
        />
      )}
      {!batches.data && !batches.error && <Loading label="Loading anchors…" />}
      {batches.data && all === 0 && (
        <EmptyState title="No anchor records yet">
          Anchor records arrive with evidence bundles (their anchors/ folder) or from the HTTP service’s anchoring.
          Import a bundle in <a href={hrefFor(['bundles'])}>Bundles</a>; each receipt it anchors then shows here and in
          its receipt’s detail.
        </EmptyState>
      )}
      {batches.data && totals && all !== undefined && all > 0 && (
        <>
          <Panel title="States">
            <ul className="anchor-totals" aria-label="Anchor records by state">
              {ANCHOR_STATES.map((name) => (
                <li key={name}>
                  <a
                    className={`anchor-total${state === name ? ' anchor-total-selected' : ''}`}
                    href={filterHref(state === name ? undefined : name, batch)}
                    aria-current={state === name ? 'true' : undefined}
                    data-total-state={name}
                  >
                    <span className="stat">{formatCount(totals[name])}</span>
                    <AnchorStateBadge state={name} />
                  </a>
                </li>
              ))}
            </ul>
          </Panel>
          <Panel title={`Batches (${formatCount(batches.data.batches.length)}${batches.data.nextCursor ? '+' : ''})`}>
            <div className="table-scroll">
              <table className="table anchor-batches" data-testid="anchor-batches">
                <caption className="visually-hidden">Anchor batches, newest first, with their records by state</caption>
                <thead>
                  <tr>
                    <th scope="col">Batch</th>
                    <th scope="col">Network · block</th>
                    <th scope="col">Transaction</th>
                    <th scope="col" className="numeric">
                      Records
                    </th>
                    <th scope="col">By state</th>
                  </tr>
                </thead>
                <tbody>
                  {batches.data.batches.map((row) => (
                    <tr
                      key={row.batch_id}
                      data-batch-id={row.batch_id}
                      aria-selected={batch === row.batch_id ? true : undefined}
                    >
                      <td className="nowrap">
                        <a
                          href={filterHref(state, batch === row.batch_id ? undefined : row.batch_id)}
                          aria-label={`${batch === row.batch_id ? 'Show every batch' : `Show the records of batch ${row.batch_id}`}`}
                        >
                          {row.batch_id}
                        </a>
                      </td>
                      <td className="nowrap">
                        {row.network === null ? (
                          <span className="muted">pending</span>
                        ) : (
                          `${row.network} · ${row.block_height ?? '—'}`
                        )}
                      </td>
                      <td>
                        {row.tx_hash === null ? (
                          <span className="muted">not posted yet</span>
                        ) : (
                          <HashChip hash={row.tx_hash} what={`the transaction of batch ${row.batch_id}`} />
                        )}
                      </td>
                      <td className="numeric">{formatCount(row.total)}</td>
                      <td>
                        <span className="anchor-batch-states">
                          {ANCHOR_STATES.filter((name) => row.by_state[name] > 0).map((name) => (
                            <span key={name} className="anchor-batch-state">
                              <AnchorStateBadge state={name} /> {formatCount(row.by_state[name])}
                            </span>
                          ))}
                        </span>
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          </Panel>
          {batch && (
            <Panel title={`Check batch ${batch} on chain`}>
              <AnchorCheckControl
                key={batch}
                input={{ batch_id: batch }}
                label="Check this batch on chain"
                what={`batch ${batch}`}
                onFinished={() => {
                  batches.reload();
                  setReloads((count) => count + 1);
                }}
              />
            </Panel>
          )}
          <AnchorRecords key={reloads} state={state} batch={batch} />
        </>
      )}
    </Page>
  );
}

function AnchorRecords({ state, batch }: { state: AnchorState | undefined; batch: string | undefined }) {
  const [rows, setRows] = useState<AnchorRow[] | undefined>(undefined);
  const [cursor, setCursor] = useState<string | null>(null);
  const [error, setError] = useState<string | undefined>(undefined);
  const [loading, setLoading] = useState(false);
  const latest = useRef(0);

  const load = async (after: string | undefined, replace: boolean): Promise<void> => {
    const request = ++latest.current;
    setLoading(true);
    try {
      const page = await api['anchors.list']({
        ...(state ? { state } : {}),
        ...(batch ? { batch_id: batch } : {}),
        ...(after ? { after } : {}),
        limit: 100,
      });
      // An answer for filters that changed meanwhile is dropped.
      if (request !== latest.current) return;
      setRows((current) => (replace || current === undefined ? page.rows : [...current, ...page.rows]));
      setCursor(page.nextCursor);
      setError(undefined);
    } catch (reason) {
      if (request === latest.current) setError(errorMessage(reason));
    } finally {
      if (request === latest.current) setLoading(false);
    }
  };

  useEffect(() => {
    setRows(undefined);
    void load(undefined, true);
    // Reload exactly when the filters change (load reads them).
  }, [state, batch]);

  const title = `Anchor records${state ? ` · ${anchorStateLabel(state)}` : ''}${batch ? ` · batch ${batch}` : ''}`;
  return (
    <Panel title={title}>
      <form
        className="toolbar anchor-filters"
        onSubmit={(event) => event.preventDefault()}
        aria-label="Filter anchor records"
      >
        <label>
          <span>State</span>
          <select
            value={state ?? ''}
            aria-label="State"
            data-testid="anchor-state-filter"
            onChange={(event) => navigate(['anchors'], { state: event.target.value || undefined, batch }, true)}
          >
            <option value="">Every state</option>
            {ANCHOR_STATES.map((name) => (
              <option key={name} value={name}>
                {anchorStateLabel(name)}
              </option>
            ))}
          </select>
        </label>
        {batch && (
          <p className="anchor-filter-batch">
            Batch <span className="code">{batch}</span> <a href={filterHref(state, undefined)}>Show every batch</a>
          </p>
        )}
      </form>
      {error && <ErrorNotice title="The anchor records could not be loaded" message={error} />}
      {rows === undefined && !error && <Loading label="Loading anchor records…" />}
      {rows !== undefined && rows.length === 0 && <p className="muted">No anchor record matches these filters.</p>}
      {rows !== undefined && rows.length > 0 && (
        <div className="table-scroll">
          <table className="table anchor-records" data-testid="anchor-records">
            <caption className="visually-hidden">{title}</caption>
            <thead>
              <tr>
                <th scope="col">Anchor</th>
                <th scope="col">State</th>
                <th scope="col">Batch</th>
                <th scope="col">Block</th>
                <th scope="col">Receipt</th>
                <th scope="col">Last check (UTC)</th>
              </tr>
            </thead>
            <tbody>
              {rows.map((row) => (
                <tr key={row.id} data-anchor-id={row.id} data-state={row.state}>
                  <td>
                    <a
                      href={hrefFor(['anchors', row.id])}
                      className="anchor-open"
                      aria-label={`Open anchor ${row.id} (${anchorStateLabel(row.state)})`}
                    >
                      Anchor {row.id}
                    </a>
                    <CopyableValue
                      value={row.svc_anchor}
                      short={`…${row.svc_anchor.slice(-16)}`}
                      what={`the URN of anchor ${row.id}`}
                      className="muted anchor-suffix"
                    />
                  </td>
                  <td>
                    <AnchorStateBadge state={row.state} />
                  </td>
                  <td className="nowrap">{row.batch_id}</td>
                  <td>{row.block_height ?? <span className="muted">—</span>}</td>
                  <td>
                    {row.receipt_ledger_id !== null ? (
                      <a href={hrefFor(['receipts', row.receipt_ledger_id])}>Receipt {row.receipt_ledger_id}</a>
                    ) : (
                      <span className="muted">{row.receipt_sha256 === null ? 'not named' : 'not in the ledger'}</span>
                    )}
                  </td>
                  <td className="nowrap">{formatInstant(row.checked_at)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {cursor && (
        <p>
          <Button onClick={() => void load(cursor, false)} disabled={loading}>
            {loading ? 'Loading…' : 'Show more'}
          </Button>
        </p>
      )}
    </Panel>
  );
}

function AnchorDetailPage({ id }: { id: number }) {
  const valid = Number.isSafeInteger(id) && id >= 1;
  const loaded = useApi('anchors.get', { id: valid ? id : 1 }, String(id));
  const [detail, setDetail] = useState<AnchorDetail | undefined>(undefined);
  useEffect(() => setDetail(loaded.data), [loaded.data]);
  const back = (
    <a className="button button-secondary" href={hrefFor(['anchors'])}>
      ← All anchors
    </a>
  );
  if (!valid) {
    return (
      <Page title="Anchor not found" actions={back}>
        <ErrorNotice
          title="Anchor not found"
          message="That address does not name an anchor record: it ends in the record’s number, e.g. #/anchors/12."
        />
      </Page>
    );
  }
  return (
    <Page
      title={`Anchor ${id}`}
      subtitle={detail ? <CopyableValue value={detail.svc_anchor} what="the anchor URN" /> : undefined}
      actions={back}
    >
      {loaded.error && (
        <ErrorNotice
          title="This anchor record could not be shown"
          message={loaded.error}
          hint={<a href={hrefFor(['anchors'])}>See every anchor</a>}
        />
      )}
      {!detail && !loaded.error && <Loading label="Loading the anchor record…" />}
      {detail && (
        <Panel title="Record, proof and verification steps">
          <AnchorPanel detail={detail} onChange={setDetail} />
        </Panel>
      )}
    </Page>
  );
}
