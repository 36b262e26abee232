/**
 * The trust store: the keys you pinned (the only keys that make a receipt `trusted`), keys that
 * bundles advertised (listed apart: listing confers no trust), the pin form, and the audit log
 * of every trust decision. Pin, revoke and unpin each ask for confirmation saying what changes.
 */
import { useEffect, useRef, useState, type ReactNode } from 'react';
import type { AdvertisedKey, PinnedKey } from '../../src-shared/api/contract';
import { keyFingerprintOfB64u } from '../../src-shared/crypto/fingerprint';
import { api, errorMessage, useApi } from '../api';
import { hrefFor, navigate, useRoute } from '../router';
import {
  Button,
  Code,
  ConfirmDialog,
  EmptyState,
  ErrorNotice,
  Loading,
  Page,
  Panel,
  formatCount,
  formatInstant,
} from '../components/ui';
import { TrustBadge, trustMeaning } from '../components/status';
import { PinForm, type PinDraft, type PinFormHandle } from '../components/trust-pin-form';
import { AuditTable } from '../components/trust-audit';
import { CopyableValue } from '../components/copyable-value';
import './trust.css';

type PendingChange = { kind: 'revoke'; key: PinnedKey } | { kind: 'unpin'; key: PinnedKey };

const MAX_REASON = 1024;

function keyName(key: { key_id: string; label?: string }): string {
  return key.label ? `${key.key_id} (“${key.label}”)` : key.key_id;
}

function windowText(key: { not_before?: string; not_after?: string }): string {
  if (key.not_before && key.not_after) return `${key.not_before} → ${key.not_after}`;
  if (key.not_before) return `from ${key.not_before}`;
  if (key.not_after) return `until ${key.not_after}`;
  return 'no limits';
}

/** A source name, linked when it names a bundle (`bundle:12`). */
function SourceText({ source }: { source: string }) {
  const bundle = /^bundle:(\d+)$/.exec(source);
  if (bundle?.[1]) return <a href={hrefFor(['bundles', bundle[1]])}>bundle {bundle[1]}</a>;
  return (
    <span title={source === 'user' ? 'pinned by you, in this app or with the CLI' : undefined}>
      {source === 'user' ? 'you' : source}
    </span>
  );
}

/** A pin asked for by a link (`#/trust?pin=KEY&receipt=ID`): the key id, and the receipt it came from. */
interface PinRequest {
  keyId: string;
  receipt: number | undefined;
}

function pinRequestOf(query: URLSearchParams): PinRequest | undefined {
  const keyId = query.get('pin')?.trim();
  if (!keyId) return undefined;
  const receipt = Number(query.get('receipt'));
  return { keyId, receipt: Number.isSafeInteger(receipt) && receipt > 0 ? receipt : undefined };
}

/**
 * What the form is filled with for a requested key, from what the ledger knows of it: a did:key
 * names its own bytes (the form derives them); a key that bundles advertised under this id with
 * one set of bytes gives those bytes; otherwise only the id, and the words say what to supply.
 */
function prefillFor(
  request: PinRequest,
  store: { pinned: readonly PinnedKey[]; advertised: readonly AdvertisedKey[] },
): { draft: Partial<PinDraft>; note: ReactNode } {
  const { keyId } = request;
  const from = request.receipt !== undefined && (
    <>
      {' '}
      (from <a href={hrefFor(['receipts', request.receipt])}>receipt {request.receipt}</a>)
    </>
  );
  const pinned = store.pinned.find((key) => key.key_id === keyId);
  if (pinned) {
    return {
      draft: {},
      note: (
        <>
          <Code>{keyId}</Code>
          {from} is already in your trust store (effective status ‘{pinned.effective}’): see Pinned keys above.
        </>
      ),
    };
  }
  if (keyId.startsWith('did:key:')) {
    return {
      draft: { key_id: keyId, algorithm: 'Ed25519' },
      note: (
        <>
          Filled in for <Code>{keyId}</Code>
          {from}: a did:key names its own public key, so the bytes below are exactly the key that signed. Pinning still
          says you trust its owner: check the key id with them before you confirm.
        </>
      ),
    };
  }
  const offers = new Map<string, AdvertisedKey>();
  for (const key of store.advertised) if (key.key_id === keyId) offers.set(`${key.algorithm}\n${key.public_key}`, key);
  const [only, ...others] = [...offers.values()];
  if (only && others.length === 0) {
    const sources = [...new Set(store.advertised.filter((key) => key.key_id === keyId).map((key) => key.source))];
    return {
      draft: { key_id: keyId, algorithm: only.algorithm, public_key: only.public_key },
      note: (
        <>
          Filled in for <Code>{keyId}</Code>
          {from} with the public key{' '}
          {sources.map((source, index) => (
            <span key={source}>
              {index > 0 && ', '}
              <SourceText source={source} />
            </span>
          ))}{' '}
          advertised for it. Whoever made a bundle can put any key in it: compare these bytes with the key file its
          owner published before you confirm.
        </>
      ),
    };
  }
  return {
    draft: { key_id: keyId },
    note: (
      <>
        Filled in the key id <Code>{keyId}</Code>
        {from}.{' '}
        {only
          ? 'Bundles advertised different public keys under this id, so none is filled in: '
          : 'The ledger does not hold this key’s public key: '}
        paste it below from the key file its owner published (base64url; 32 bytes for Ed25519, 1,952 for ML-DSA-65).
      </>
    ),
  };
}

/** The Trust store page. */
export function TrustView() {
  const store = useApi('trust.list', undefined);
  const audit = useApi('trust.audit', { limit: 200 });
  const formRef = useRef<PinFormHandle>(null);
  const route = useRoute();
  const request = pinRequestOf(route.query);
  const requestKey = request ? `${request.keyId}\n${request.receipt ?? ''}` : undefined;
  const [pinNote, setPinNote] = useState<{ request: PinRequest; note: ReactNode } | undefined>(undefined);
  const applied = useRef<string | undefined>(undefined);
  const [pending, setPending] = useState<PendingChange | undefined>(undefined);
  const [reason, setReason] = useState('');
  const [changeError, setChangeError] = useState<string | undefined>(undefined);
  const [done, setDone] = useState<ReactNode>(undefined);
  const [working, setWorking] = useState(false);

  const reload = (): void => {
    store.reload();
    audit.reload();
  };

  // "Pin this key…" (Overview, receipt detail) opens this page with the key asked for: fill the
  // form once the store is known. The user still reviews, labels and confirms: nothing is pinned here.
  useEffect(() => {
    if (!request || !requestKey || !store.data || applied.current === requestKey) return;
    applied.current = requestKey;
    const { draft, note } = prefillFor(request, store.data);
    setPinNote({ request, note });
    if (draft.key_id) formRef.current?.prefill(draft);
  }, [request, requestKey, store.data]);

  const pinned = store.data?.pinned ?? [];
  const advertised = store.data?.advertised ?? [];
  const advertisedGroups = groupAdvertised(advertised);
  const pinnedById = new Map(pinned.map((key) => [key.key_id, key]));

  const advertisedConflict = (keyId: string, publicKey: string): string | undefined => {
    if (keyId === '' || publicKey === '') return undefined;
    const other = advertised.find((key) => key.key_id === keyId && key.public_key !== publicKey);
    return other
      ? `The source ${other.source} advertised ${keyId} with the public key ${other.public_key.slice(0, 16)}…, not the one you entered. Make sure you have the right key before pinning.`
      : undefined;
  };

  const confirmChange = async (): Promise<void> => {
    if (!pending) return;
    const change = pending;
    setWorking(true);
    setChangeError(undefined);
    try {
      if (change.kind === 'revoke') {
        const trimmed = reason.trim();
        await api['trust.revoke']({ key_id: change.key.key_id, ...(trimmed ? { reason: trimmed } : {}) });
        setDone(`Revoked ${keyName(change.key)}. Receipts it signed now show trust ‘revoked’.`);
      } else {
        await api['trust.unpin']({ key_id: change.key.key_id });
        setDone(`Removed ${keyName(change.key)} from the trust store. Receipts it signed now show trust ‘unpinned’.`);
      }
      setPending(undefined);
      setReason('');
      reload();
    } catch (failure) {
      const code = (failure as { code?: unknown }).code;
      setChangeError(`${errorMessage(failure)}${typeof code === 'string' ? ` (${code})` : ''}`);
    } finally {
      setWorking(false);
    }
  };

  return (
    <Page
      title="Trust store"
      subtitle="Keys you pinned are the only keys that make a receipt ‘trusted’. A valid signature by any other key shows ‘unpinned’: genuine, but from a signer you have not vouched for."
      actions={
        <Button variant="primary" onClick={() => formRef.current?.prefill({})}>
          Pin a key…
        </Button>
      }
    >
      {done && (
        <div className="notice notice-info trust-done" role="status" data-testid="trust-done">
          <p>
            <span aria-hidden="true">✓ </span>
            {done}{' '}
            <button type="button" className="link-button" onClick={() => setDone(undefined)}>
              Dismiss
            </button>
          </p>
        </div>
      )}
      {store.error && (
        <ErrorNotice
          title="The trust store could not be loaded"
          message={store.error}
          hint="Check that the app is still running, then reload the page."
        />
      )}

      <Panel title={store.data ? `Pinned keys (${formatCount(pinned.length)})` : 'Pinned keys'}>
        {!store.data && !store.error ? (
          <Loading label="Loading the trust store…" />
        ) : pinned.length === 0 ? (
          <EmptyState title="No pinned keys yet">
            Receipts can verify PASS without a pinned key, but their trust stays ‘unpinned’. Pin the key of a service
            you know, from its published key file, to mark the receipts it signed as trusted: fill in the form below, or
            use “Pin…” on an advertised key once you have checked it with the sender.
          </EmptyState>
        ) : (
          <div className="table-scroll">
            <table className="table trust-table" data-testid="pinned-table">
              <thead>
                <tr>
                  <th scope="col">Key · algorithm</th>
                  <th scope="col">Validity window (UTC)</th>
                  <th scope="col">Effective status</th>
                  <th scope="col">Pinned by · when</th>
                  <th scope="col">
                    <span className="visually-hidden">Actions</span>
                  </th>
                </tr>
              </thead>
              <tbody>
                {pinned.map((key) => (
                  <tr key={key.key_id} data-key-id={key.key_id}>
                    <td className="key-cell">
                      {key.label && <span className="key-label">{key.label}</span>}
                      <CopyableValue
                        value={key.key_id}
                        what={key.label ? `the id of key ${key.label}` : 'the id of this key'}
                      />
                      <span className="key-bytes muted">
                        {key.algorithm} · key{' '}
                        <CopyableValue
                          value={key.public_key}
                          short={`${key.public_key.slice(0, 12)}…`}
                          what={`the public key${key.label ? ` of ${key.label}` : ''}`}
                        />
                      </span>
                      <span className="key-bytes muted" data-fingerprint={keyFingerprintOfB64u(key.public_key)}>
                        fingerprint {keyFingerprintOfB64u(key.public_key) ?? 'unavailable'}
                      </span>
                      <span className="key-roles muted" title="Used in another role, its signatures are not trusted">
                        {key.roles ? `roles: ${key.roles.join(', ')} only` : 'roles: every role'}
                      </span>
                    </td>
                    <td className="window-cell">{windowText(key)}</td>
                    <td className="status-cell">
                      <TrustBadge trust={key.effective} />
                      {key.status === 'revoked' ? (
                        <span className="status-meaning">
                          revoked {formatInstant(key.revoked_at)}
                          {key.revocation_reason && (
                            <span className="revocation-reason">“{key.revocation_reason}”</span>
                          )}
                        </span>
                      ) : (
                        <span className="status-meaning muted">
                          {key.effective === 'expired'
                            ? 'outside its validity window now'
                            : trustMeaning(key.effective)}
                        </span>
                      )}
                    </td>
                    <td className="source-cell">
                      <SourceText source={key.source} />
                      <span className="nowrap muted">{formatInstant(key.added_at)}</span>
                    </td>
                    <td className="actions-cell">
                      {key.status !== 'revoked' && (
                        <Button
                          variant="secondary"
                          onClick={() => {
                            setReason('');
                            setChangeError(undefined);
                            setPending({ kind: 'revoke', key });
                          }}
                        >
                          Revoke…
                        </Button>
                      )}
                      <Button
                        variant="ghost"
                        onClick={() => {
                          setChangeError(undefined);
                          setPending({ kind: 'unpin', key });
                        }}
                      >
                        Unpin…
                      </Button>
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
      </Panel>

      <Panel
        title={
          store.data
            ? `Advertised keys, not trusted (${formatCount(advertisedGroups.length)})`
            : 'Advertised keys, not trusted'
        }
        className="advertised-panel"
      >
        <div className="notice notice-info advertised-note">
          <p className="notice-title">Listing confers no trust</p>
          <p>
            These keys came inside bundles (keys/service-keys.json) or other inputs. They let signatures be checked, but
            whoever made a bundle can put any key in it, so receipts they sign stay ‘unpinned’. Pin one only after
            checking it with its owner through another channel.
          </p>
        </div>
        {!store.data && !store.error ? (
          <Loading label="Loading advertised keys…" />
        ) : advertised.length === 0 ? (
          <EmptyState title="No advertised keys">
            Keys appear here when you import a bundle that carries keys/service-keys.json.
          </EmptyState>
        ) : (
          <div className="table-scroll">
            <table className="table trust-table" data-testid="advertised-table">
              <thead>
                <tr>
                  <th scope="col">Key</th>
                  <th scope="col">Algorithm</th>
                  <th scope="col">Came from</th>
                  <th scope="col">First seen</th>
                  <th scope="col">In your trust store</th>
                  <th scope="col">
                    <span className="visually-hidden">Actions</span>
                  </th>
                </tr>
              </thead>
              <tbody>
                {advertisedGroups.map((group) => (
                  <AdvertisedRow
                    key={`${group.key_id}|${group.algorithm}|${group.public_key}`}
                    advertised={group}
                    pinned={pinnedById.get(group.key_id)}
                    onPin={() =>
                      formRef.current?.prefill({
                        key_id: group.key_id,
                        algorithm: group.algorithm,
                        public_key: group.public_key,
                      })
                    }
                  />
                ))}
              </tbody>
            </table>
          </div>
        )}
      </Panel>

      <Panel title="Pin a key" className="pin-panel">
        <p className="muted pin-intro">
          Pinning says “receipts signed by this key come from someone I trust”. It is recorded in the audit log and
          every stored receipt signed by the key is re-checked.
        </p>
        <PinForm
          ref={formRef}
          advertisedConflict={advertisedConflict}
          intro={
            pinNote && (
              <div className="notice notice-info pin-request" role="status" data-testid="pin-request">
                <p>{pinNote.note}</p>
              </div>
            )
          }
          onPinned={(key) => {
            const receipt = pinNote?.request.receipt;
            setDone(
              <>
                Pinned {keyName(key)}. Receipts it signed now show trust ‘{key.effective}’.
                {receipt !== undefined && (
                  <>
                    {' '}
                    <a href={hrefFor(['receipts', receipt])}>Back to receipt {receipt}</a>.
                  </>
                )}
              </>,
            );
            setPinNote(undefined);
            if (request) navigate(['trust'], undefined, true);
            reload();
          }}
        />
      </Panel>

      <Panel title="Audit log of trust decisions">
        {audit.error ? (
          <ErrorNotice title="The audit log could not be loaded" message={audit.error} />
        ) : !audit.data ? (
          <Loading label="Loading the audit log…" />
        ) : (
          <AuditTable entries={audit.data} />
        )}
      </Panel>

      {pending && (
        <ConfirmDialog
          title={pending.kind === 'revoke' ? `Revoke ${pending.key.key_id}?` : `Unpin ${pending.key.key_id}?`}
          confirmLabel={working ? 'Working…' : pending.kind === 'revoke' ? 'Revoke key' : 'Unpin key'}
          danger
          onConfirm={() => {
            if (!working) void confirmChange();
          }}
          onCancel={() => {
            setPending(undefined);
            setChangeError(undefined);
          }}
        >
          {pending.kind === 'revoke' ? (
            <>
              <p>
                Receipts signed by <Code>{pending.key.key_id}</Code>
                {pending.key.label && <> (“{pending.key.label}”)</>} will show trust <strong>‘revoked’</strong> instead
                of ‘{pending.key.effective}’. The key stays in the trust store so those receipts stay flagged; their
                signatures remain cryptographically valid. This is recorded in the audit log.
              </p>
              <label className="dialog-field">
                Reason (optional, recorded in the audit log)
                <input
                  type="text"
                  value={reason}
                  maxLength={MAX_REASON}
                  placeholder="e.g. key compromised, service retired"
                  onChange={(event) => setReason(event.currentTarget.value)}
                />
              </label>
            </>
          ) : (
            <p>
              <Code>{pending.key.key_id}</Code>
              {pending.key.label && <> (“{pending.key.label}”)</>} leaves the trust store. Receipts signed by it will
              show trust <strong>‘unpinned’</strong> instead of ‘{pending.key.effective}’
              {pending.key.status === 'revoked' && ': they will no longer be flagged as signed by a revoked key'}. This
              is recorded in the audit log, which keeps the whole entry.
            </p>
          )}
          {changeError && (
            <p className="field-error" role="alert">
              <span aria-hidden="true">✗ </span>
              {changeError}
            </p>
          )}
        </ConfirmDialog>
      )}
    </Page>
  );
}

/** One advertised key (same id and bytes) with every source that advertised it. */
interface AdvertisedGroup {
  key_id: string;
  algorithm: AdvertisedKey['algorithm'];
  public_key: string;
  sources: string[];
  first_seen: number;
  contradictsTrustStore: boolean;
}

/** The same key advertised by several bundles is one row, listing where it came from. */
function groupAdvertised(keys: readonly AdvertisedKey[]): AdvertisedGroup[] {
  const groups = new Map<string, AdvertisedGroup>();
  for (const key of keys) {
    const id = `${key.key_id}\n${key.algorithm}\n${key.public_key}`;
    const group = groups.get(id);
    if (group) {
      if (!group.sources.includes(key.source)) group.sources.push(key.source);
      group.first_seen = Math.min(group.first_seen, key.added_at);
      group.contradictsTrustStore ||= key.contradictsTrustStore;
    } else {
      groups.set(id, {
        key_id: key.key_id,
        algorithm: key.algorithm,
        public_key: key.public_key,
        sources: [key.source],
        first_seen: key.added_at,
        contradictsTrustStore: key.contradictsTrustStore,
      });
    }
  }
  return [...groups.values()];
}

function AdvertisedRow({
  advertised,
  pinned,
  onPin,
}: {
  advertised: AdvertisedGroup;
  pinned: PinnedKey | undefined;
  onPin: () => void;
}) {
  const samePinned =
    pinned !== undefined && pinned.public_key === advertised.public_key && pinned.algorithm === advertised.algorithm;
  return (
    <tr data-key-id={advertised.key_id} data-contradicts={advertised.contradictsTrustStore ? 'true' : undefined}>
      <td className="key-cell">
        <CopyableValue value={advertised.key_id} what="the id of this advertised key" />
        <span className="key-bytes muted">
          key{' '}
          <CopyableValue
            value={advertised.public_key}
            short={`${advertised.public_key.slice(0, 12)}…`}
            what="the advertised public key"
          />
        </span>
      </td>
      <td className="nowrap">{advertised.algorithm}</td>
      <td>
        {advertised.sources.map((source, index) => (
          <span key={source}>
            {index > 0 && ', '}
            <SourceText source={source} />
          </span>
        ))}
      </td>
      <td className="nowrap">{formatInstant(advertised.first_seen)}</td>
      <td>
        {advertised.contradictsTrustStore ? (
          <span
            className="badge badge-warn contradiction"
            title="the key pinned under this id has other key bytes"
            data-testid="contradicts"
          >
            <span aria-hidden="true" className="badge-icon">
              ⚠
            </span>
            contradicts your pinned key
          </span>
        ) : samePinned ? (
          <span className="muted">
            same key is pinned · <TrustBadge trust={pinned.effective} />
          </span>
        ) : (
          <span className="badge badge-neutral">
            <span aria-hidden="true" className="badge-icon">
              ○
            </span>
            not pinned
          </span>
        )}
      </td>
      <td className="actions-cell">{!pinned && <Button onClick={onPin}>Pin…</Button>}</td>
    </tr>
  );
}
