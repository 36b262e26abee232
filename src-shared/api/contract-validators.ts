/**
 * The runtime validators of the app API contract (contract.ts): `APP_API` maps each method to
 * the function that turns its untrusted input into the typed `AppApiParams[method]` or throws
 * {@link ApiInputError}. The main process runs them (src-main/appapi dispatch) before any
 * handler; the renderer never imports this module, so neither the validators nor TypeBox are in
 * its bundle.
 *
 * A plain shape (no input, an id, a job id, a key id, a report id, a port, a new tenant, an API
 * key's tenant, scopes or prefix, the anchors methods) is validated by its TypeBox schema
 * (contract-schemas.ts) through {@link validatorOf}, the same schema its type comes from. The
 * rest are written by hand with validate.ts: their rules are more than a shape (timestamps that
 * parse and are ordered, filters a report may not take, distinct signer roles, chain settings
 * where null and '' clear the RPC, an upload whose data must be base64url).
 */
import { contactProblem, MAX_ISSUER_DID_LENGTH } from '../payments/memo';
import { SIGNER_ROLES, type SignerRole } from '../verify/context';
import { KEY_ID_RULE, keyIdProblem } from '../verify/keys';
import { ANCHOR_LEDGER_STATES, chainSettingsInput } from './anchor-contract';
import { CONTEXT_API } from './context-contract';
import { LOGS_API } from './logs-contract';
import { serviceDatabaseInput } from './service-database';
import {
  DEVELOPMENT_ACCOUNT_COUNT,
  MAX_UPLOAD_B64,
  MAX_VERIFY_KEY_FILE_TEXT,
  MAX_VERIFY_TEXT,
  RECEIPT_EXPORT_FORMS,
  RECEIPT_SORT_COLUMNS,
  THEMES,
  type AppApiMethod,
  type AppApiParams,
  type Limits,
  type ReceiptFilters,
  type VerifyFileInput,
} from './contract';
import {
  AnchorsBatchesSchema,
  AnchorsListSchema,
  ApiKeysIssueSchema,
  ApiKeysListSchema,
  ApiKeysRevokeSchema,
  IdInputSchema,
  JobInputSchema,
  NoInputSchema,
  ReportsDiffSchema,
  ReportsGetSchema,
  ServicePaymentsSchema,
  ServiceStartSchema,
  TenantsCreateSchema,
  TrustAuditSchema,
  TrustRevokeSchema,
  TrustUnpinSchema,
} from './contract-schemas';
import { validatorOf } from './schema-validator';
import {
  ApiInputError,
  integerField,
  objectInput,
  oneOf,
  optionalBoolean,
  optionalInteger,
  optionalOneOf,
  optionalString,
  optionalTimestamp,
  stringField,
} from './validate';
import { KEY_ALGORITHMS, REPORT_STATUSES, TRUST_STATUSES } from './vocabulary';

const MAX_TEXT = 512;

/** A name to show, refused when it holds control or bidirectional formatting characters. */
function displayName(name: string | undefined, path: string, what: string): string | undefined {
  // eslint-disable-next-line no-control-regex -- control characters are what is refused
  if (name !== undefined && /[\u0000-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/.test(name))
    throw new ApiInputError(`${what} must not hold control or bidirectional formatting characters`, path);
  return name;
}

/** A key, trust or secrets file given to `verify`: its name and its text (parsed by the handler). */
function verifyFileInput(value: unknown, kind: 'keys' | 'trust' | 'secrets'): VerifyFileInput | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    throw new ApiInputError(`${kind} must be an object {name, text}`, `/${kind}`);
  const source = objectInput(value, ['name', 'text'], kind);
  const named = source['name'];
  if (typeof named !== 'string' || named.length === 0 || named.length > MAX_TEXT)
    throw new ApiInputError(`${kind}.name must be the file's name, 1 to ${MAX_TEXT} characters`, `/${kind}/name`);
  const name = displayName(named, `/${kind}/name`, `${kind}.name`) ?? named;
  const text = source['text'];
  if (typeof text !== 'string') throw new ApiInputError(`${kind}.text must be the file's text`, `/${kind}/text`);
  if (text.length > MAX_VERIFY_KEY_FILE_TEXT)
    throw new ApiInputError(
      `${kind} file “${name}” is larger than ${MAX_VERIFY_KEY_FILE_TEXT} characters; key, trust and secrets files are small`,
      `/${kind}/text`,
    );
  return { name, text };
}

function filtersInput(value: unknown): ReceiptFilters {
  const source = objectInput(
    value,
    ['format', 'status', 'trust', 'issuer', 'from', 'to', 'text', 'bundle', 'anchor'],
    'filters',
  );
  const filters: ReceiptFilters = {};
  const format = optionalString(source, 'format', 128);
  if (format !== undefined) filters.format = format;
  const status = optionalOneOf(source, 'status', REPORT_STATUSES);
  if (status !== undefined) filters.status = status;
  const trust = optionalOneOf(source, 'trust', TRUST_STATUSES);
  if (trust !== undefined) filters.trust = trust;
  const issuer = optionalString(source, 'issuer', 2048);
  if (issuer !== undefined) filters.issuer = issuer;
  const from = optionalTimestamp(source, 'from');
  if (from !== undefined) filters.from = from;
  const to = optionalTimestamp(source, 'to');
  if (to !== undefined) filters.to = to;
  if (from !== undefined && to !== undefined && Date.parse(from) > Date.parse(to))
    throw new ApiInputError('filters.from must not be after filters.to');
  // The ledger keeps instants as milliseconds from 1970 on.
  for (const [name, instant] of [
    ['from', from],
    ['to', to],
  ] as const) {
    if (instant !== undefined && Date.parse(instant) < 0)
      throw new ApiInputError(`filters.${name} must be 1970-01-01T00:00:00Z or later`, `/filters/${name}`);
  }
  const text = optionalString(source, 'text', MAX_TEXT);
  if (text !== undefined) filters.text = text;
  const bundle = optionalInteger(source, 'bundle', 1, Number.MAX_SAFE_INTEGER);
  if (bundle !== undefined) filters.bundle = bundle;
  const anchor = optionalOneOf(source, 'anchor', ANCHOR_LEDGER_STATES);
  if (anchor !== undefined) filters.anchor = anchor;
  return filters;
}

/** Runs a field's check and names the field in the error's path (a form shows it beside the field). */
function atField<T>(name: string, check: () => T): T {
  try {
    return check();
  } catch (error) {
    if (error instanceof ApiInputError && error.path === undefined) throw new ApiInputError(error.message, `/${name}`);
    throw error;
  }
}

/** `roles`: distinct names of SIGNER_ROLES, at least one; absent for every role (PROTOCOL section 0). */
function rolesField(source: Record<string, unknown>): SignerRole[] | undefined {
  const value = source.roles;
  if (value === undefined) return undefined;
  return atField('roles', () => {
    if (!Array.isArray(value) || value.length === 0)
      throw new ApiInputError(
        `roles must be a non-empty list of ${SIGNER_ROLES.join(', ')} (leave it out for every role)`,
      );
    // Each role at most once, so the loop stops within SIGNER_ROLES.length + 1 items however long the list.
    const roles: SignerRole[] = [];
    for (const [index, role] of value.entries()) {
      if (typeof role !== 'string' || !(SIGNER_ROLES as readonly string[]).includes(role))
        throw new ApiInputError(`roles must each be one of ${SIGNER_ROLES.join(', ')}`, `/roles/${index}`);
      if (roles.includes(role as SignerRole)) throw new ApiInputError(`roles names ${role} twice`, `/roles/${index}`);
      roles.push(role as SignerRole);
    }
    return roles;
  });
}

/**
 * `service.buyKey`: each field checked in the words a form shows beside it. The contact is one
 * of the three kinds a memo may name (src-shared/payments/memo.ts decides which), so a payment
 * the app sends is never recorded as `memo_invalid`.
 */
function buyKeyInput(input: unknown): AppApiParams['service.buyKey'] {
  const source = objectInput(input, ['tier', 'contact', 'issuer_did', 'annual', 'account']);
  const tier = atField('tier', () => {
    if (source.tier === 'enterprise')
      throw new ApiInputError('enterprise is sold by contact, not on chain; choose pro or scale');
    return oneOf(source, 'tier', ['pro', 'scale'] as const);
  });
  const contact = atField('contact', () => {
    if (source.contact === undefined || source.contact === '')
      throw new ApiInputError('contact is required: an e-mail address, a domain or a did:key the key is delivered to');
    const value = stringField(source, 'contact', 320);
    const problem = contactProblem(value);
    if (problem !== undefined) throw new ApiInputError(problem);
    return value;
  });
  const result: AppApiParams['service.buyKey'] = {
    tier,
    contact,
    annual: atField('annual', () => {
      if (typeof source.annual !== 'boolean')
        throw new ApiInputError('annual must be true (a year, ten months’ price) or false (a month)');
      return source.annual;
    }),
    account: atField('account', () => {
      if (source.account === undefined)
        throw new ApiInputError(
          `account is required: the development account that pays, 0 to ${DEVELOPMENT_ACCOUNT_COUNT - 1}`,
        );
      return integerField(source, 'account', 0, DEVELOPMENT_ACCOUNT_COUNT - 1);
    }),
  };
  put(
    result,
    'issuer_did',
    atField('issuer_did', () => {
      const value = optionalString(source, 'issuer_did', MAX_ISSUER_DID_LENGTH);
      if (value === undefined) return undefined;
      // The memo's rule (src-shared/payments/memo.ts): a DID in printable ASCII without spaces.
      if (!/^did:[a-z0-9]+:[\x21-\x7e]+$/.test(value))
        throw new ApiInputError('issuer_did must be a DID (did:<method>:<identifier>, printable ASCII without spaces)');
      return value;
    }),
  );
  return result;
}

type Validators = { [M in keyof AppApiParams]: (input: unknown) => AppApiParams[M] };

/** Sets `name` on `target` only when `value` is defined (inputs carry no undefined members). */
function put<T extends object, K extends keyof T>(target: T, name: K, value: T[K] | undefined): void {
  if (value !== undefined) target[name] = value;
}

const emptyInput = validatorOf(NoInputSchema);
/** Methods that take nothing: `{}`, null or no input at all; their type stays `undefined`. */
function noInput(input: unknown): undefined {
  emptyInput(input);
  return undefined;
}

const idInput = validatorOf(IdInputSchema);
const jobInput = validatorOf(JobInputSchema);

/** The contract: method name to input validator. Result types are in `AppApiResults`. */
export const APP_API: Validators = {
  ...CONTEXT_API,
  ...LOGS_API,
  info: noInput,
  overview: noInput,
  'receipts.get': idInput,
  'bundles.list': noInput,
  'bundles.get': idInput,
  'imports.progress': jobInput,
  'imports.cancel': jobInput,
  'trust.list': noInput,
  'trust.revoke': validatorOf(TrustRevokeSchema),
  'trust.unpin': validatorOf(TrustUnpinSchema),
  'trust.audit': validatorOf(TrustAuditSchema),
  'settings.get': noInput,
  'samples.load': noInput,
  'reports.list': noInput,
  'reports.get': validatorOf(ReportsGetSchema),
  'reports.diff': validatorOf(ReportsDiffSchema),
  'service.status': noInput,
  'service.start': validatorOf(ServiceStartSchema),
  'service.stop': noInput,
  'service.payments': validatorOf(ServicePaymentsSchema),
  'tenants.list': noInput,
  'tenants.create': validatorOf(TenantsCreateSchema),
  'apikeys.list': validatorOf(ApiKeysListSchema),
  'apikeys.issue': validatorOf(ApiKeysIssueSchema),
  'apikeys.revoke': validatorOf(ApiKeysRevokeSchema),
  'anchors.batches': validatorOf(AnchorsBatchesSchema),
  'anchors.list': validatorOf(AnchorsListSchema),
  'anchors.get': idInput,
  'anchors.ofReceipt': idInput,
  'anchors.check': idInput,
  'anchors.counts': noInput,
  'anchors.checkProgress': jobInput,
  'anchors.checkCancel': jobInput,
  'anchors.checkStart': (input) => {
    const source = objectInput(input, ['filters', 'batch_id']);
    if ((source.filters === undefined) === (source.batch_id === undefined))
      throw new ApiInputError('Give exactly one of filters (the receipts to check) and batch_id (the batch to check)');
    if (source.batch_id !== undefined) {
      const batchId = stringField(source, 'batch_id', 17);
      if (!/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}Z$/.test(batchId))
        throw new ApiInputError('batch_id must be a batch id, YYYY-MM-DDThh:mmZ', '/batch_id');
      return { batch_id: batchId };
    }
    return { filters: filtersInput(source.filters) };
  },

  // Written by hand (see the module's comment).
  'service.buyKey': buyKeyInput,
  'receipts.list': (input) => {
    const source = objectInput(input, ['filters', 'sort', 'direction', 'after', 'limit']);
    const result: AppApiParams['receipts.list'] = { filters: filtersInput(source.filters) };
    put(result, 'sort', optionalOneOf(source, 'sort', RECEIPT_SORT_COLUMNS));
    put(result, 'direction', optionalOneOf(source, 'direction', ['asc', 'desc'] as const));
    put(result, 'after', optionalString(source, 'after', 2048));
    put(result, 'limit', optionalInteger(source, 'limit', 1, 500));
    return result;
  },
  'receipts.count': (input) => ({ filters: filtersInput(objectInput(input, ['filters']).filters) }),
  'receipts.export': (input) => {
    const source = objectInput(input, ['form', 'filters', 'sort', 'direction', 'after', 'limit']);
    const result: AppApiParams['receipts.export'] = {
      form: oneOf(source, 'form', RECEIPT_EXPORT_FORMS),
      filters: filtersInput(source.filters),
    };
    put(result, 'sort', optionalOneOf(source, 'sort', RECEIPT_SORT_COLUMNS));
    put(result, 'direction', optionalOneOf(source, 'direction', ['asc', 'desc'] as const));
    put(result, 'after', optionalString(source, 'after', 2048));
    // The ledger's own page cap: one call never holds more than this many rows.
    put(result, 'limit', optionalInteger(source, 'limit', 1, 1000));
    return result;
  },
  verify: (input) => {
    const source = objectInput(input, ['text', 'save', 'name', 'keys', 'trust', 'secrets']);
    const result: AppApiParams['verify'] = {
      text: stringField(source, 'text', MAX_VERIFY_TEXT),
      save: optionalBoolean(source, 'save') ?? false,
    };
    // The name is shown in the app and printed by `evroom ledger show`: like an upload's, no
    // control characters (a terminal would obey them), and at most MAX_TEXT characters.
    put(result, 'name', displayName(optionalString(source, 'name', MAX_TEXT), '/name', 'name'));
    for (const kind of ['keys', 'trust', 'secrets'] as const) put(result, kind, verifyFileInput(source[kind], kind));
    return result;
  },
  'imports.start': (input) => {
    const source = objectInput(input, ['name', 'data']);
    if (source.data === undefined)
      throw new ApiInputError('data is required: the bundle as base64url (the app imports uploads, never a path)');
    const data = stringField(source, 'data', MAX_UPLOAD_B64, 0);
    if (!/^[A-Za-z0-9_-]*$/.test(data)) throw new ApiInputError('data must be base64url without padding');
    const result: AppApiParams['imports.start'] = { data };
    put(result, 'name', optionalString(source, 'name', MAX_TEXT));
    return result;
  },
  'trust.pin': (input) => {
    const source = objectInput(input, [
      'key_id',
      'algorithm',
      'public_key',
      'label',
      'not_before',
      'not_after',
      'roles',
    ]);
    const keyId = stringField(source, 'key_id', 2048, 0);
    // PROTOCOL section 0's one rule (any DID, or 1-256 printable ASCII without spaces), so a pin
    // is refused here with the same words whichever door it came through.
    const problem = keyIdProblem(keyId);
    if (problem !== undefined) throw new ApiInputError(`key_id is not a key id: ${problem} ${KEY_ID_RULE}`, '/key_id');
    const result: AppApiParams['trust.pin'] = {
      key_id: keyId,
      algorithm: oneOf(source, 'algorithm', KEY_ALGORITHMS),
      public_key: stringField(source, 'public_key', 4096),
    };
    put(result, 'label', optionalString(source, 'label', MAX_TEXT));
    put(result, 'not_before', optionalTimestamp(source, 'not_before'));
    put(result, 'not_after', optionalTimestamp(source, 'not_after'));
    put(result, 'roles', rolesField(source));
    return result;
  },
  'settings.set': (input) => {
    const source = objectInput(input, ['theme', 'limits', 'chain', 'service_database']);
    const result: AppApiParams['settings.set'] = {};
    put(result, 'theme', optionalOneOf(source, 'theme', THEMES));
    if (source.limits !== undefined) {
      const limits = objectInput(source.limits, ['maxEntries', 'maxBytes', 'maxRatio'], 'limits');
      const chosen: Partial<Limits> = {};
      put(chosen, 'maxEntries', optionalInteger(limits, 'maxEntries', 1, 10_000_000));
      put(chosen, 'maxBytes', optionalInteger(limits, 'maxBytes', 1024, 1024 ** 4));
      put(chosen, 'maxRatio', optionalInteger(limits, 'maxRatio', 1, 100_000));
      result.limits = chosen;
    }
    if (source.chain !== undefined) result.chain = chainSettingsInput(source.chain);
    if (source.service_database !== undefined) result.service_database = serviceDatabaseInput(source.service_database);
    return result;
  },
  'exports.create': (input) => {
    const source = objectInput(input, ['filters', 'name']);
    const result: AppApiParams['exports.create'] = { filters: filtersInput(source.filters) };
    put(result, 'name', optionalString(source, 'name', MAX_TEXT));
    return result;
  },
  'reports.create': (input) => {
    const source = objectInput(input, ['filters', 'as_of', 'allow_empty']);
    const filters = filtersInput(source.filters);
    if (filters.bundle !== undefined)
      throw new ApiInputError(
        'filters.bundle is not a report scope; filter by format, status, trust, issuer, time or text',
      );
    // A report's scope names its filters, and its rows carry their own anchor column; the
    // ledger's anchor state is not (yet) a scope a report can state.
    if (filters.anchor !== undefined)
      throw new ApiInputError(
        'filters.anchor is not a report scope; filter by format, status, trust, issuer, time or text',
        '/filters/anchor',
      );
    const result: AppApiParams['reports.create'] = { filters };
    put(result, 'as_of', optionalTimestamp(source, 'as_of'));
    put(result, 'allow_empty', optionalBoolean(source, 'allow_empty'));
    return result;
  },
};

/** Whether a string names a method of the contract. */
export function isAppApiMethod(name: unknown): name is AppApiMethod {
  return typeof name === 'string' && Object.prototype.hasOwnProperty.call(APP_API, name);
}
