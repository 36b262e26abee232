/**
 * The TypeBox schemas of the app API methods whose input is a plain shape: one schema gives the
 * method's input type (`Static<typeof schema>`, named in `AppApiParams`) and its validator
 * (`validatorOf` in schema-validator.ts, collected in contract-validators.ts).
 *
 * The renderer imports only the types of this module (`import type`), so TypeBox stays out of
 * its bundle. Inputs with rules a schema says poorly (filters, timestamps, roles,
 * chain settings, an upload) keep their hand-written validators in contract-validators.ts.
 * Every object here allows no other members, and every string and list has a bound.
 */
import { Type, type TLiteral, type TUnion } from '@sinclair/typebox';
import { API_KEY_SCOPES, TENANT_ID_PATTERN, TENANT_ID_RULE, TIERS } from './vocabulary';
import { ANCHOR_STATES } from './anchor-contract';
import { REPORT_FORMS, REPORT_ID_PATTERN } from './contract';

/** The literal schemas of a constant list of strings, as a tuple. */
type Literals<T extends readonly string[]> = { -readonly [K in keyof T]: TLiteral<T[K]> };

/** A union of string literals from a constant list, typed as the list's union. */
function oneOf<const T extends readonly string[]>(values: T): TUnion<Literals<T>> {
  return Type.Union(values.map((value) => Type.Literal(value))) as unknown as TUnion<Literals<T>>;
}

/** An object allowing exactly the given members. */
const strict = { additionalProperties: false } as const;

/** A ledger row id. */
const rowId = Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER });
/** A report id: rpt_ and a ULID. */
const reportId = Type.String({
  minLength: 1,
  maxLength: 64,
  pattern: REPORT_ID_PATTERN.source,
  rule: 'a report id (rpt_ and a ULID)',
});
/** A tenant id of the service (vocabulary.ts). */
const tenantId = Type.String({ minLength: 1, maxLength: 64, pattern: TENANT_ID_PATTERN.source, rule: TENANT_ID_RULE });
/** A page's cursor, as a previous page gave it. */
const cursor = Type.String({ minLength: 1, maxLength: 2048 });
/** A page's size. */
const pageSize = Type.Integer({ minimum: 1, maximum: 500 });
/**
 * A key id as the trust store names it, to look an entry up (revoke, unpin): only bounded, since
 * entries pinned under an earlier, longer rule must stay reachable. A new pin is checked against
 * PROTOCOL section 0's rule (`keyIdProblem`) by the `trust.pin` validator.
 */
const keyId = Type.String({ minLength: 1, maxLength: 2048 });

/** Methods that take nothing: `{}`, or no input at all. */
export const NoInputSchema = Type.Object({}, strict);
/** Methods that take one ledger row id. */
export const IdInputSchema = Type.Object({ id: rowId }, strict);
/** Methods that take an import job's id. */
export const JobInputSchema = Type.Object({ jobId: Type.String({ minLength: 1, maxLength: 64 }) }, strict);

/** `trust.revoke`. */
export const TrustRevokeSchema = Type.Object(
  { key_id: keyId, reason: Type.Optional(Type.String({ minLength: 1, maxLength: 512 })) },
  strict,
);
/** `trust.unpin`. */
export const TrustUnpinSchema = Type.Object({ key_id: keyId }, strict);
/** `trust.audit`: the last `limit` entries (200 when absent). */
export const TrustAuditSchema = Type.Object(
  { limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000, default: 200 })) },
  strict,
);

/** `reports.get`. */
export const ReportsGetSchema = Type.Object({ report_id: reportId, form: oneOf(REPORT_FORMS) }, strict);
/** `reports.diff`. */
export const ReportsDiffSchema = Type.Object({ old_report: reportId, new_report: reportId }, strict);

/** `service.start`: port 0 or absent for any free port. */
export const ServiceStartSchema = Type.Object(
  { port: Type.Optional(Type.Integer({ minimum: 0, maximum: 65535 })) },
  strict,
);

/** `service.payments`: the newest `limit` payments (200 when absent). */
export const ServicePaymentsSchema = Type.Object(
  { limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000, default: 200 })) },
  strict,
);

/** `tenants.create`. */
export const TenantsCreateSchema = Type.Object({ id: tenantId, tier: oneOf(TIERS) }, strict);

/** `apikeys.list`. */
export const ApiKeysListSchema = Type.Object({ tenant: Type.Optional(tenantId) }, strict);
/** `apikeys.issue`: each scope at most once. */
export const ApiKeysIssueSchema = Type.Object(
  {
    tenant: tenantId,
    scopes: Type.Optional(Type.Array(oneOf(API_KEY_SCOPES), { uniqueItems: true, maxItems: API_KEY_SCOPES.length })),
  },
  strict,
);
/** `apikeys.revoke`: a key's prefix as listed, `svc_<tier>_` and up to 16 base64url characters. */
export const ApiKeysRevokeSchema = Type.Object(
  {
    prefix: Type.String({
      minLength: 1,
      maxLength: 32,
      pattern: '^svc_[a-z]+_[A-Za-z0-9_-]{1,16}$',
      rule: 'a key prefix as listed, like svc_pro_Ab12Cd34',
    }),
  },
  strict,
);

/** `anchors.batches`. */
export const AnchorsBatchesSchema = Type.Object(
  { after: Type.Optional(cursor), limit: Type.Optional(pageSize) },
  strict,
);
/** `anchors.list`. */
export const AnchorsListSchema = Type.Object(
  {
    batch_id: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 17,
        pattern: '^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}Z$',
        rule: 'a batch id, YYYY-MM-DDThh:mmZ',
      }),
    ),
    state: Type.Optional(oneOf(ANCHOR_STATES)),
    after: Type.Optional(cursor),
    limit: Type.Optional(pageSize),
  },
  strict,
);

/**
 * The schema of each method validated by schema (the noInput methods' type stays `undefined`:
 * the caller passes nothing).
 */
export const APP_API_SCHEMAS = {
  info: NoInputSchema,
  overview: NoInputSchema,
  'receipts.get': IdInputSchema,
  'bundles.list': NoInputSchema,
  'bundles.get': IdInputSchema,
  'imports.progress': JobInputSchema,
  'imports.cancel': JobInputSchema,
  'trust.list': NoInputSchema,
  'trust.revoke': TrustRevokeSchema,
  'trust.unpin': TrustUnpinSchema,
  'trust.audit': TrustAuditSchema,
  'settings.get': NoInputSchema,
  'samples.load': NoInputSchema,
  'reports.list': NoInputSchema,
  'reports.get': ReportsGetSchema,
  'reports.diff': ReportsDiffSchema,
  'service.status': NoInputSchema,
  'service.start': ServiceStartSchema,
  'service.stop': NoInputSchema,
  'service.payments': ServicePaymentsSchema,
  'tenants.list': NoInputSchema,
  'tenants.create': TenantsCreateSchema,
  'apikeys.list': ApiKeysListSchema,
  'apikeys.issue': ApiKeysIssueSchema,
  'apikeys.revoke': ApiKeysRevokeSchema,
  'anchors.batches': AnchorsBatchesSchema,
  'anchors.list': AnchorsListSchema,
  'anchors.get': IdInputSchema,
  'anchors.ofReceipt': IdInputSchema,
  'anchors.check': IdInputSchema,
  'anchors.counts': NoInputSchema,
  'anchors.checkProgress': JobInputSchema,
  'anchors.checkCancel': JobInputSchema,
} as const;
/** A method validated by its schema. */
export type SchemaMethod = keyof typeof APP_API_SCHEMAS;
