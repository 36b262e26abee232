/**
 * The pin form of the trust store: key id, algorithm, public key, optional label, validity
 * window and roles; checked as the user types, confirmed in a dialog that says exactly what changes, and
 * refused fields from the API shown next to the field they concern.
 */
import { useEffect, useImperativeHandle, useRef, useState, type ReactNode, type Ref } from 'react';
import { KEY_ALGORITHMS, type ApiKeyAlgorithm, type AppApiParams, type PinnedKey } from '../../src-shared/api/contract';
import { ed25519FromDidKey } from '../../src-shared/crypto/did-key';
import { b64uDecode, b64uEncode } from '../../src-shared/crypto/encoding';
import { SIGNER_ROLES, type SignerRole } from '../../src-shared/verify/context';
import { isKeyId, keyIdProblem, PUBLIC_KEY_LENGTH } from '../../src-shared/verify/keys';
import { api, errorMessage } from '../api';
import { Button, Code, ConfirmDialog } from './ui';

/** The form's fields, as typed. */
export interface PinDraft {
  key_id: string;
  algorithm: ApiKeyAlgorithm;
  public_key: string;
  label: string;
  not_before: string;
  not_after: string;
  /** Role names separated by commas; empty for every role. */
  roles: string;
}

type FieldName = keyof PinDraft;
type FieldErrors = Partial<Record<FieldName | 'form', string>>;

/** An empty draft. */
export const EMPTY_DRAFT: PinDraft = {
  key_id: '',
  algorithm: 'Ed25519',
  public_key: '',
  label: '',
  not_before: '',
  not_after: '',
  roles: '',
};

/**
 * The roles typed in the form: names separated by commas (spaces allowed), or an error.
 *
 * @returns the roles in the order typed, `undefined` for every role (nothing typed), or the
 *   problem in words
 */
export function parseDraftRoles(text: string): SignerRole[] | undefined | { error: string } {
  if (text.trim() === '') return undefined;
  const roles: SignerRole[] = [];
  for (const part of text.split(',')) {
    const name = part.trim();
    if (name === '') return { error: `Separate role names with commas: ${SIGNER_ROLES.join(', ')}.` };
    if (!(SIGNER_ROLES as readonly string[]).includes(name))
      return { error: `“${name.slice(0, 40)}” is not a role; a role is one of ${SIGNER_ROLES.join(', ')}.` };
    if (roles.includes(name as SignerRole)) return { error: `${name} is given twice.` };
    roles.push(name as SignerRole);
  }
  return roles;
}

const TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})?Z$/;
const MAX_LABEL = 256;

/** A pasted key: whitespace dropped, standard base64 turned into base64url. */
function normalisePublicKey(value: string): string {
  return value.replace(/\s+/g, '').replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

function hasControlCharacter(value: string): boolean {
  for (let index = 0; index < value.length; index += 1) {
    const code = value.charCodeAt(index);
    if (code < 0x20 || (code >= 0x7f && code <= 0x9f)) return true;
  }
  return false;
}

/**
 * Checks a draft as the trust store will, so most mistakes are caught before the API call.
 *
 * @returns an error per field; empty when the draft can be sent
 */
export function validateDraft(draft: PinDraft): FieldErrors {
  const errors: FieldErrors = {};
  const keyId = draft.key_id.trim();
  const keyIdError = keyId === '' ? undefined : keyIdProblem(keyId);
  if (keyId === '')
    errors.key_id =
      'Enter the key id: any DID (did:web:example.com, did:hive:typed-demo, did:key:z6Mk…) or a name such as test-key-001.';
  else if (keyIdError !== undefined)
    errors.key_id = `${keyIdError} A key id is any DID or 1 to 256 printable ASCII characters without spaces.`;
  if (!(KEY_ALGORITHMS as readonly string[]).includes(draft.algorithm))
    errors.algorithm = `Choose ${KEY_ALGORITHMS.join(' or ')}.`;
  const publicKey = normalisePublicKey(draft.public_key);
  const expected = PUBLIC_KEY_LENGTH[draft.algorithm];
  if (publicKey === '') {
    errors.public_key = `Enter the public key as base64url (${expected} bytes for ${draft.algorithm}).`;
  } else if (!/^[A-Za-z0-9_-]+$/.test(publicKey)) {
    errors.public_key = 'Only base64url characters (A–Z a–z 0–9 - _) are allowed.';
  } else {
    let bytes: Uint8Array | undefined;
    try {
      bytes = b64uDecode(publicKey);
    } catch {
      errors.public_key = 'This is not canonical base64url: check that nothing was cut off when copying.';
    }
    if (bytes && bytes.length !== expected)
      errors.public_key = `An ${draft.algorithm} public key is ${expected} bytes; this one is ${bytes.length}.`;
    else if (bytes && keyId.startsWith('did:key:') && isKeyId(keyId)) {
      if (draft.algorithm !== 'Ed25519') errors.algorithm = 'A did:key names an Ed25519 key.';
      else if (b64uEncode(ed25519FromDidKey(keyId)) !== publicKey)
        errors.public_key = 'This did:key names other key bytes than the public key given.';
    }
  }
  const label = draft.label.trim();
  if (label.length > MAX_LABEL) errors.label = `At most ${MAX_LABEL} characters (this is ${label.length}).`;
  else if (hasControlCharacter(label)) errors.label = 'Control characters are not allowed.';
  for (const name of ['not_before', 'not_after'] as const) {
    const value = draft[name].trim();
    if (value !== '' && (!TIMESTAMP.test(value) || Number.isNaN(Date.parse(value))))
      errors[name] = 'Use a UTC timestamp like 2026-01-31T00:00:00Z.';
  }
  const roles = parseDraftRoles(draft.roles);
  if (roles !== undefined && !Array.isArray(roles)) errors.roles = roles.error;
  if (
    !errors.not_before &&
    !errors.not_after &&
    draft.not_before.trim() !== '' &&
    draft.not_after.trim() !== '' &&
    Date.parse(draft.not_after.trim()) < Date.parse(draft.not_before.trim())
  ) {
    errors.not_after = '“Not after” is before “not before”: the key would never be valid.';
  }
  return errors;
}

/** Which field an API refusal concerns, from its code (trust store) or its message (contract). */
function fieldOfApiError(code: string, message: string): FieldName | 'form' {
  switch (code) {
    case 'invalid_key_id':
    case 'key_revoked':
    case 'already_pinned':
      return 'key_id';
    case 'invalid_algorithm':
      return 'algorithm';
    case 'invalid_public_key':
    case 'did_key_mismatch':
    case 'key_conflict':
      return 'public_key';
    case 'invalid_label':
      return 'label';
    case 'invalid_window':
      return 'not_after';
    case 'invalid_roles':
      return 'roles';
    case 'invalid_timestamp':
      return /not_after/.test(message) ? 'not_after' : 'not_before';
    default: {
      const named = /^(key_id|algorithm|public_key|label|not_before|not_after|roles)\b/.exec(message);
      return named ? (named[1] as FieldName) : 'form';
    }
  }
}

/** What a pin changes, in words for the confirmation. */
function windowWords(draft: PinDraft): string {
  const from = draft.not_before.trim();
  const until = draft.not_after.trim();
  if (from && until) return ` from ${from} until ${until}; outside that window they will show ‘expired’`;
  if (from) return ` from ${from}; before that they will show ‘expired’`;
  if (until) return ` until ${until}; after that they will show ‘expired’`;
  return '';
}

/** Lets the page fill the form (from an advertised key) and bring it into view. */
export interface PinFormHandle {
  prefill(draft: Partial<PinDraft>): void;
}

/**
 * The pin form.
 *
 * @param onPinned - called with the pinned key after the API accepted it
 * @param advertisedConflict - tells whether a key id is advertised with other bytes than given
 * @param intro - shown at the top of the form
 * @param ref - receives {@link PinFormHandle}
 */
export function PinForm({
  onPinned,
  advertisedConflict,
  intro,
  ref,
}: {
  onPinned: (key: PinnedKey) => void;
  advertisedConflict?: (keyId: string, publicKey: string) => string | undefined;
  /** Shown at the top of the form, e.g. where a prefilled key came from and what is left to supply. */
  intro?: ReactNode;
  ref?: Ref<PinFormHandle>;
}) {
  const [draft, setDraft] = useState<PinDraft>(EMPTY_DRAFT);
  const [touched, setTouched] = useState<Partial<Record<FieldName, boolean>>>({});
  const [submitted, setSubmitted] = useState(false);
  const [apiErrors, setApiErrors] = useState<FieldErrors>({});
  const [confirming, setConfirming] = useState(false);
  const [busy, setBusy] = useState(false);
  const formRef = useRef<HTMLFormElement>(null);
  const labelRef = useRef<HTMLInputElement>(null);
  const keyIdRef = useRef<HTMLInputElement>(null);

  useImperativeHandle(ref, () => ({
    prefill(values) {
      setDraft({ ...EMPTY_DRAFT, ...values });
      setTouched({});
      setSubmitted(false);
      setApiErrors({});
      formRef.current?.scrollIntoView({ behavior: 'smooth', block: 'start' });
      // The key is filled in; what is left for the user is the label.
      setTimeout(() => (values.key_id ? labelRef.current : keyIdRef.current)?.focus(), 0);
    },
  }));

  const errors = validateDraft(draft);
  const shown = (name: FieldName): string | undefined =>
    apiErrors[name] ?? (submitted || touched[name] ? errors[name] : undefined);

  // A did:key carries its public key: fill it in when the field is still empty.
  useEffect(() => {
    const keyId = draft.key_id.trim();
    if (draft.public_key === '' && keyId.startsWith('did:key:') && isKeyId(keyId)) {
      try {
        setDraft((current) => ({ ...current, algorithm: 'Ed25519', public_key: b64uEncode(ed25519FromDidKey(keyId)) }));
      } catch {
        // isKeyId said it decodes; nothing to fill otherwise.
      }
    }
  }, [draft.key_id, draft.public_key]);

  const update = (name: FieldName, value: string): void => {
    setDraft((current) => ({ ...current, [name]: value }));
    setApiErrors((current) => {
      const { [name]: _dropped, form: _form, ...rest } = current;
      return rest;
    });
  };

  const submit = (): void => {
    setSubmitted(true);
    if (Object.keys(errors).length === 0) setConfirming(true);
  };

  const pin = async (): Promise<void> => {
    setConfirming(false);
    setBusy(true);
    const input: AppApiParams['trust.pin'] = {
      key_id: draft.key_id.trim(),
      algorithm: draft.algorithm,
      public_key: normalisePublicKey(draft.public_key),
    };
    if (draft.label.trim()) input.label = draft.label.trim();
    if (draft.not_before.trim()) input.not_before = draft.not_before.trim();
    if (draft.not_after.trim()) input.not_after = draft.not_after.trim();
    const roles = parseDraftRoles(draft.roles);
    if (Array.isArray(roles)) input.roles = roles;
    try {
      const key = await api['trust.pin'](input);
      setDraft(EMPTY_DRAFT);
      setTouched({});
      setSubmitted(false);
      setApiErrors({});
      onPinned(key);
    } catch (reason) {
      const code = (reason as { code?: unknown }).code;
      const message = errorMessage(reason);
      const field = fieldOfApiError(typeof code === 'string' ? code : '', message);
      setApiErrors({
        [field]: typeof code === 'string' && code !== 'invalid_request' ? `${message} (${code})` : message,
      });
    } finally {
      setBusy(false);
    }
  };

  const field = (name: FieldName, label: string, control: ReactNode, hint?: ReactNode): ReactNode => {
    const error = shown(name);
    return (
      <div className={`pin-field pin-field-${name}${error ? ' pin-field-invalid' : ''}`}>
        <label htmlFor={`pin-${name}`}>{label}</label>
        {control}
        {error ? (
          <p className="field-error" id={`pin-${name}-error`} role="alert">
            <span aria-hidden="true">✗ </span>
            {error}
          </p>
        ) : (
          hint && (
            <p className="field-hint" id={`pin-${name}-hint`}>
              {hint}
            </p>
          )
        )}
      </div>
    );
  };

  const describedBy = (name: FieldName): string => (shown(name) ? `pin-${name}-error` : `pin-${name}-hint`);
  const common = (name: FieldName) => ({
    id: `pin-${name}`,
    name,
    value: draft[name],
    'aria-invalid': shown(name) ? true : undefined,
    'aria-describedby': describedBy(name),
    onBlur: () => setTouched((current) => ({ ...current, [name]: true })),
  });
  const conflict = advertisedConflict?.(draft.key_id.trim(), normalisePublicKey(draft.public_key));

  return (
    <form
      ref={formRef}
      className="pin-form"
      noValidate
      aria-label="Pin a key"
      onSubmit={(event) => {
        event.preventDefault();
        submit();
      }}
    >
      {intro}
      <div className="pin-grid">
        {field(
          'key_id',
          'Key id',
          <input
            ref={keyIdRef}
            {...common('key_id')}
            type="text"
            spellCheck={false}
            autoComplete="off"
            placeholder="did:svc:acme:k1"
            onChange={(event) => update('key_id', event.currentTarget.value)}
          />,
          'Any DID (did:web:…, did:hive:…, did:key:z6Mk…, which fills in its public key) or a name such as test-key-001.',
        )}
        {field(
          'algorithm',
          'Algorithm',
          <select {...common('algorithm')} onChange={(event) => update('algorithm', event.currentTarget.value)}>
            {KEY_ALGORITHMS.map((algorithm) => (
              <option key={algorithm} value={algorithm}>
                {algorithm}
              </option>
            ))}
          </select>,
        )}
        {field(
          'public_key',
          'Public key (base64url)',
          <textarea
            {...common('public_key')}
            rows={draft.algorithm === 'ML-DSA-65' ? 6 : 2}
            spellCheck={false}
            placeholder="43 characters for Ed25519"
            onChange={(event) => update('public_key', event.currentTarget.value)}
          />,
          `${PUBLIC_KEY_LENGTH[draft.algorithm]} bytes for ${draft.algorithm}. Take it from the sender’s published key file, not from the bundle you want to check.`,
        )}
        {field(
          'label',
          'Label (optional)',
          <input
            {...common('label')}
            type="text"
            placeholder="Acme receipts service, 2026 key"
            onChange={(event) => update('label', event.currentTarget.value)}
          />,
          'Shown next to the key id in every view.',
        )}
        {field(
          'not_before',
          'Not before (optional, UTC)',
          <input
            {...common('not_before')}
            type="text"
            spellCheck={false}
            placeholder="2026-01-01T00:00:00Z"
            onChange={(event) => update('not_before', event.currentTarget.value)}
          />,
          'Leave empty for no start.',
        )}
        {field(
          'not_after',
          'Not after (optional, UTC)',
          <input
            {...common('not_after')}
            type="text"
            spellCheck={false}
            placeholder="2027-01-01T00:00:00Z"
            onChange={(event) => update('not_after', event.currentTarget.value)}
          />,
          'Leave empty for no end.',
        )}
        {field(
          'roles',
          'Roles (optional)',
          <input
            {...common('roles')}
            type="text"
            spellCheck={false}
            autoComplete="off"
            placeholder="service"
            onChange={(event) => update('roles', event.currentTarget.value)}
          />,
          `Trust it only as ${SIGNER_ROLES.join(', ')} (separated by commas). Leave empty for every role.`,
        )}
      </div>
      {conflict && (
        <div className="notice notice-warn" role="status">
          <p className="notice-title">⚠ This key id was advertised with other key bytes</p>
          <p>{conflict}</p>
        </div>
      )}
      {apiErrors.form && (
        <p className="field-error" role="alert">
          <span aria-hidden="true">✗ </span>
          {apiErrors.form}
        </p>
      )}
      <div className="pin-actions">
        <Button type="submit" variant="primary" disabled={busy}>
          {busy ? 'Pinning…' : 'Pin key…'}
        </Button>
        {Object.values(draft).some((value) => value !== '' && value !== 'Ed25519') && (
          <Button
            variant="ghost"
            onClick={() => {
              setDraft(EMPTY_DRAFT);
              setTouched({});
              setSubmitted(false);
              setApiErrors({});
            }}
          >
            Clear
          </Button>
        )}
        {submitted && Object.keys(errors).length > 0 && (
          <span className="field-error">Fix the fields marked ✗ first.</span>
        )}
      </div>
      {confirming && (
        <ConfirmDialog
          title={`Pin ${draft.key_id.trim()}?`}
          confirmLabel="Pin key"
          onConfirm={() => void pin()}
          onCancel={() => setConfirming(false)}
        >
          <p>
            Receipts signed by <Code>{draft.key_id.trim()}</Code> will show trust <strong>‘trusted’</strong> instead of
            ‘unpinned’{windowWords(draft)}. Every stored receipt it signed is re-checked now.
          </p>
          <dl className="confirm-facts">
            <dt>Algorithm</dt>
            <dd>{draft.algorithm}</dd>
            <dt>Public key</dt>
            <dd>
              <Code>{normalisePublicKey(draft.public_key)}</Code>
            </dd>
            {draft.label.trim() && (
              <>
                <dt>Label</dt>
                <dd>{draft.label.trim()}</dd>
              </>
            )}
            <dt>Roles</dt>
            <dd>
              {draft.roles.trim()
                ? `${(parseDraftRoles(draft.roles) as SignerRole[]).join(', ')} only: in another role its signatures are not trusted`
                : 'every role'}
            </dd>
          </dl>
          {conflict && <p className="field-error">⚠ {conflict}</p>}
          <p className="muted">
            Only pin a key you got from its owner through a channel you trust. This is recorded in the audit log.
          </p>
        </ConfirmDialog>
      )}
    </form>
  );
}
