/**
 * The service's accounts in the Service view: tenants (with their quota use, and a form to
 * create one) and API keys (issued and shown once in a dialog, listed by prefix, revoked after a
 * confirmation that says what changes). Refusals from the API are shown beside the field they
 * name (the error envelope's details).
 */
import { useEffect, useRef, useState } from 'react';
import {
  API_KEY_SCOPES,
  TIERS,
  type ApiKeyScope,
  type ApiKeyView,
  type IssuedApiKey,
  type TenantQuotaUse,
  type Tier,
} from '../../src-shared/api/contract';
import { isTenantId } from '../../src-shared/api/vocabulary';
import { api, errorMessage, useApi } from '../api';
import {
  Button,
  Code,
  ConfirmDialog,
  EmptyState,
  ErrorNotice,
  Loading,
  Panel,
  TableScroll,
  formatCount,
  formatInstant,
} from './ui';
import { CopyButton } from './receipts-shared';
import { FieldError, formField, refusalErrors, type FieldErrors } from './form-field';

/** What each tier allows, in words (PROTOCOL section 9). */
const TIER_WORDS: Readonly<Record<Tier, string>> = {
  free: 'free: 100 receipts a day',
  pro: 'pro: 50,000 receipts a month',
  scale: 'scale: unlimited',
  enterprise: 'enterprise: unlimited',
};

/** A tenant's quota use: a bar for limited tiers, a count for unlimited ones. */
function QuotaCell({ quota }: { quota: TenantQuotaUse }) {
  if (quota.limit === null) {
    return (
      <span className="quota-text">
        {formatCount(quota.used)} issued in {quota.period} · <span className="muted">unlimited</span>
      </span>
    );
  }
  const percent = quota.limit === 0 ? 100 : Math.min(100, (quota.used / quota.limit) * 100);
  return (
    <div className="quota">
      <span className="quota-text">
        {formatCount(quota.used)} of {formatCount(quota.limit)} in {quota.period}
      </span>
      <div
        className="progress quota-bar"
        role="progressbar"
        aria-label={`Quota used in ${quota.period}`}
        aria-valuemin={0}
        aria-valuemax={quota.limit}
        aria-valuenow={quota.used}
      >
        <span className={percent >= 90 ? 'quota-high' : undefined} style={{ width: `${percent}%` }} />
      </div>
    </div>
  );
}

/** The dialog that shows a new key this once. */
function IssuedKeyDialog({ issued, onClose }: { issued: IssuedApiKey; onClose: () => void }) {
  const doneRef = useRef<HTMLButtonElement>(null);
  useEffect(() => {
    doneRef.current?.focus();
    const onKey = (event: KeyboardEvent): void => {
      if (event.key === 'Escape') onClose();
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [onClose]);
  return (
    <div className="dialog-backdrop">
      <div
        className="dialog issued-key-dialog"
        role="dialog"
        aria-modal="true"
        aria-labelledby="issued-key-title"
        aria-describedby="issued-key-once"
      >
        <h2 id="issued-key-title">API key for {issued.apiKey.tenant_id}</h2>
        <div className="dialog-body">
          <p className="notice notice-warn issued-key-once" id="issued-key-once">
            <strong>This key is shown once.</strong> Only its SHA-256 is kept, so it cannot be shown again: copy it and
            store it now. Lost keys are revoked and replaced.
          </p>
          <pre className="code-block issued-key" data-testid="issued-key">
            {issued.key}
          </pre>
          <CopyButton text={issued.key} label="Copy key" what="the API key" />
          <dl className="confirm-facts">
            <dt>Prefix</dt>
            <dd>
              <Code>{issued.apiKey.prefix}</Code> (how lists name it)
            </dd>
            <dt>Tier</dt>
            <dd>{issued.apiKey.tier}</dd>
            <dt>Scopes</dt>
            <dd>{issued.apiKey.scopes.length > 0 ? issued.apiKey.scopes.join(', ') : 'none'}</dd>
          </dl>
        </div>
        <div className="dialog-actions">
          <button ref={doneRef} type="button" className="button button-primary" onClick={onClose}>
            I have stored it
          </button>
        </div>
      </div>
    </div>
  );
}

/**
 * The tenants and API keys panels.
 *
 * @param generation - bumped by the page while the service runs, to re-read quota use
 */
export function ServiceAccounts({ generation }: { generation: number }) {
  const tenants = useApi('tenants.list', undefined, String(generation));
  const keys = useApi('apikeys.list', {});

  const [tenantId, setTenantId] = useState('');
  const [tier, setTier] = useState<Tier>('pro');
  const [tenantErrors, setTenantErrors] = useState<FieldErrors<'id' | 'tier'>>({});
  const [creating, setCreating] = useState(false);

  const [keyTenant, setKeyTenant] = useState('');
  const [scopes, setScopes] = useState<ApiKeyScope[]>([]);
  const [keyErrors, setKeyErrors] = useState<FieldErrors<'tenant' | 'scopes'>>({});
  const [issuing, setIssuing] = useState(false);
  const [issued, setIssued] = useState<IssuedApiKey | undefined>(undefined);

  const [revoking, setRevoking] = useState<ApiKeyView | undefined>(undefined);
  const [revokeError, setRevokeError] = useState<string | undefined>(undefined);
  const [done, setDone] = useState<string | undefined>(undefined);

  const tenantList = tenants.data ?? [];
  // The issue form names an existing tenant: the first one until the user picks another.
  const chosenTenant = tenantList.some((tenant) => tenant.id === keyTenant) ? keyTenant : (tenantList[0]?.id ?? '');

  const createTenant = async (): Promise<void> => {
    const id = tenantId.trim();
    if (!isTenantId(id)) {
      setTenantErrors({
        id: id === '' ? 'Enter the tenant’s id.' : 'An id is 1 to 64 characters from A–Z a–z 0–9 . _ -',
      });
      return;
    }
    setCreating(true);
    setTenantErrors({});
    try {
      const tenant = await api['tenants.create']({ id, tier });
      setTenantId('');
      setKeyTenant(tenant.id);
      setDone(`Created tenant ${tenant.id} (${tenant.tier}). Issue it an API key below.`);
      tenants.reload();
    } catch (reason) {
      setTenantErrors(refusalErrors(reason, ['id', 'tier'] as const));
    } finally {
      setCreating(false);
    }
  };

  const issueKey = async (): Promise<void> => {
    if (chosenTenant === '') {
      setKeyErrors({ tenant: 'Create a tenant first.' });
      return;
    }
    setIssuing(true);
    setKeyErrors({});
    try {
      const answer = await api['apikeys.issue']({ tenant: chosenTenant, ...(scopes.length > 0 ? { scopes } : {}) });
      setIssued(answer);
      setScopes([]);
      keys.reload();
    } catch (reason) {
      setKeyErrors(refusalErrors(reason, ['tenant', 'scopes'] as const));
    } finally {
      setIssuing(false);
    }
  };

  const revoke = async (key: ApiKeyView): Promise<void> => {
    setRevokeError(undefined);
    try {
      await api['apikeys.revoke']({ prefix: key.prefix });
      setRevoking(undefined);
      setDone(`Revoked ${key.prefix}. Requests with it are now refused (401).`);
      keys.reload();
    } catch (reason) {
      const code = (reason as { code?: unknown }).code;
      setRevokeError(`${errorMessage(reason)}${typeof code === 'string' ? ` (${code})` : ''}`);
    }
  };

  const field = formField;

  return (
    <>
      {done && (
        <div className="notice notice-info service-done" role="status" data-testid="service-done">
          <p>
            <span aria-hidden="true">✓ </span>
            {done}{' '}
            <button type="button" className="link-button" onClick={() => setDone(undefined)}>
              Dismiss
            </button>
          </p>
        </div>
      )}

      <Panel title={tenants.data ? `Tenants (${formatCount(tenantList.length)})` : 'Tenants'}>
        {tenants.error ? (
          <ErrorNotice title="The tenants could not be loaded" message={tenants.error} />
        ) : !tenants.data ? (
          <Loading label="Loading tenants…" />
        ) : tenantList.length === 0 ? (
          <EmptyState title="No tenants yet">
            A tenant is who the service issues receipts for; its tier sets its quota and the prefix of its keys. Create
            one below.
          </EmptyState>
        ) : (
          <TableScroll label="Tenants">
            <table className="table" data-testid="tenants-table">
              <thead>
                <tr>
                  <th scope="col">Tenant</th>
                  <th scope="col">Tier</th>
                  <th scope="col">Quota use</th>
                  <th scope="col">Created (UTC)</th>
                </tr>
              </thead>
              <tbody>
                {tenantList.map((tenant) => (
                  <tr key={tenant.id} data-tenant={tenant.id}>
                    <td>
                      <Code>{tenant.id}</Code>
                    </td>
                    <td>{tenant.tier}</td>
                    <td className="quota-cell">
                      <QuotaCell quota={tenant.quota} />
                    </td>
                    <td className="nowrap">{formatInstant(tenant.created_at)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </TableScroll>
        )}
        <form
          className="service-form"
          aria-label="Create a tenant"
          noValidate
          onSubmit={(event) => {
            event.preventDefault();
            void createTenant();
          }}
        >
          {field(
            'tenant-id',
            'Tenant id',
            tenantErrors.id,
            <input
              id="tenant-id"
              type="text"
              value={tenantId}
              maxLength={64}
              spellCheck={false}
              autoComplete="off"
              placeholder="acme"
              aria-invalid={tenantErrors.id ? true : undefined}
              aria-describedby={tenantErrors.id ? 'tenant-id-error' : 'tenant-id-hint'}
              onChange={(event) => {
                setTenantId(event.currentTarget.value);
                setTenantErrors({});
              }}
            />,
            '1 to 64 of A–Z a–z 0–9 . _ -; it appears in the service’s URLs.',
          )}
          {field(
            'tenant-tier',
            'Tier',
            tenantErrors.tier,
            <select
              id="tenant-tier"
              value={tier}
              aria-invalid={tenantErrors.tier ? true : undefined}
              onChange={(event) => setTier(event.currentTarget.value as Tier)}
            >
              {TIERS.map((value) => (
                <option key={value} value={value}>
                  {TIER_WORDS[value]}
                </option>
              ))}
            </select>,
          )}
          <div className="service-form-actions">
            <Button type="submit" variant="primary" disabled={creating}>
              {creating ? 'Creating…' : 'Create tenant'}
            </Button>
          </div>
          <FieldError id="tenant-form-error" message={tenantErrors.form} />
        </form>
      </Panel>

      <Panel title={keys.data ? `API keys (${formatCount(keys.data.length)})` : 'API keys'}>
        {keys.error ? (
          <ErrorNotice title="The API keys could not be loaded" message={keys.error} />
        ) : !keys.data ? (
          <Loading label="Loading API keys…" />
        ) : keys.data.length === 0 ? (
          <EmptyState title="No API keys yet">
            Each key belongs to one tenant and its tier. It is shown once, when issued; afterwards it is named by its
            prefix.
          </EmptyState>
        ) : (
          <TableScroll label="API keys">
            <table className="table" data-testid="apikeys-table">
              <thead>
                <tr>
                  <th scope="col">Prefix</th>
                  <th scope="col">Tenant</th>
                  <th scope="col">Tier</th>
                  <th scope="col">Scopes</th>
                  <th scope="col">State</th>
                  <th scope="col">
                    <span className="visually-hidden">Actions</span>
                  </th>
                </tr>
              </thead>
              <tbody>
                {keys.data.map((key) => (
                  <tr key={key.prefix} data-prefix={key.prefix} data-state={key.state}>
                    <td>
                      <Code>{key.prefix}…</Code>
                    </td>
                    <td>{key.tenant_id}</td>
                    <td>{key.tier}</td>
                    <td>{key.scopes.length > 0 ? key.scopes.join(', ') : <span className="muted">none</span>}</td>
                    <td>
                      {key.state === 'active' ? (
                        <span className="badge badge-good">
                          <span aria-hidden="true" className="badge-icon">
                            ✓
                          </span>{' '}
                          active
                        </span>
                      ) : (
                        <span className="badge badge-bad" title={`revoked ${formatInstant(key.revoked_at)}`}>
                          <span aria-hidden="true" className="badge-icon">
                            ✗
                          </span>{' '}
                          revoked
                        </span>
                      )}
                      <span className="muted key-when">issued {formatInstant(key.created_at)}</span>
                    </td>
                    <td className="actions-cell">
                      {key.state === 'active' && (
                        <Button
                          onClick={() => {
                            setRevokeError(undefined);
                            setRevoking(key);
                          }}
                        >
                          Revoke…
                        </Button>
                      )}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </TableScroll>
        )}
        <form
          className="service-form"
          aria-label="Issue an API key"
          noValidate
          onSubmit={(event) => {
            event.preventDefault();
            void issueKey();
          }}
        >
          {field(
            'key-tenant',
            'Tenant',
            keyErrors.tenant,
            <select
              id="key-tenant"
              value={chosenTenant}
              disabled={tenantList.length === 0}
              aria-invalid={keyErrors.tenant ? true : undefined}
              onChange={(event) => setKeyTenant(event.currentTarget.value)}
            >
              {tenantList.length === 0 && <option value="">no tenants yet</option>}
              {tenantList.map((tenant) => (
                <option key={tenant.id} value={tenant.id}>
                  {tenant.id} ({tenant.tier})
                </option>
              ))}
            </select>,
          )}
          <fieldset className="service-scopes">
            <legend>Scopes</legend>
            {API_KEY_SCOPES.map((scope) => (
              <label key={scope} className="service-scope">
                <input
                  type="checkbox"
                  checked={scopes.includes(scope)}
                  onChange={(event) => {
                    const checked = event.currentTarget.checked;
                    setScopes((current) =>
                      checked ? [...current, scope] : current.filter((value) => value !== scope),
                    );
                  }}
                />{' '}
                {scope} <span className="muted">(opens the pilot routes)</span>
              </label>
            ))}
            <FieldError id="key-scopes-error" message={keyErrors.scopes} />
          </fieldset>
          <div className="service-form-actions">
            <Button type="submit" variant="primary" disabled={issuing || tenantList.length === 0}>
              {issuing ? 'Issuing…' : 'Issue key…'}
            </Button>
          </div>
          <FieldError id="key-form-error" message={keyErrors.form} />
        </form>
      </Panel>

      {issued && <IssuedKeyDialog issued={issued} onClose={() => setIssued(undefined)} />}

      {revoking && (
        <ConfirmDialog
          title={`Revoke ${revoking.prefix}…?`}
          confirmLabel="Revoke key"
          danger
          onConfirm={() => void revoke(revoking)}
          onCancel={() => {
            setRevoking(undefined);
            setRevokeError(undefined);
          }}
        >
          <p>
            Requests to the service with the key <Code>{revoking.prefix}…</Code> of{' '}
            <strong>{revoking.tenant_id}</strong> will be refused (401) from now on. A revoked key cannot be restored:
            issue a new one. Receipts already issued with it stay in the ledger. This is recorded in the audit log.
          </p>
          {revokeError && <FieldError id="revoke-error" message={revokeError} />}
        </ConfirmDialog>
      )}
    </>
  );
}
