import type { Static } from '@sinclair/typebox';
import { Check } from '@sinclair/typebox/value';
import { describe, expect, expectTypeOf, it } from 'vitest';
import type { AppApiParams } from './contract';
import { APP_API_SCHEMAS, NoInputSchema, type SchemaMethod } from './contract-schemas';
import { APP_API } from './contract-validators';
import { ApiInputError } from './validate';

const REPORT_A = 'rpt_01JZ8Q4V7Y3K2M5N6P7R8S9T0V';
const REPORT_B = 'rpt_01JZ8Q4V7Y3K2M5N6P7R8S9T0W';

/** A valid input of each method validated by schema, typed as the contract says it. */
const SAMPLES: { [M in SchemaMethod]: AppApiParams[M] } = {
  info: undefined,
  overview: undefined,
  'receipts.get': { id: 7 },
  'bundles.list': undefined,
  'bundles.get': { id: Number.MAX_SAFE_INTEGER },
  'imports.progress': { jobId: 'job-1' },
  'imports.cancel': { jobId: 'j'.repeat(64) },
  'trust.list': undefined,
  'trust.revoke': { key_id: 'svc-2026', reason: 'key left the building' },
  'trust.unpin': { key_id: 'k'.repeat(2048) },
  'trust.audit': { limit: 1000 },
  'settings.get': undefined,
  'samples.load': undefined,
  'reports.list': undefined,
  'reports.get': { report_id: REPORT_A, form: 'pdf' },
  'reports.diff': { old_report: REPORT_A, new_report: REPORT_B },
  'service.status': undefined,
  'service.start': { port: 0 },
  'service.stop': undefined,
  'service.payments': { limit: 1000 },
  'tenants.list': undefined,
  'tenants.create': { id: 'acme', tier: 'enterprise' },
  'apikeys.list': { tenant: 'acme.eu_1-x' },
  'apikeys.issue': { tenant: 'acme', scopes: ['partner'] },
  'apikeys.revoke': { prefix: 'svc_pro_Ab12Cd34' },
  'anchors.batches': { after: 'cursor', limit: 500 },
  'anchors.list': { batch_id: '2026-11-23T09:00Z', state: 'verified_offline', after: 'c', limit: 1 },
  'anchors.get': { id: 1 },
  'anchors.ofReceipt': { id: 2 },
  'anchors.check': { id: 3 },
  'anchors.counts': undefined,
  'anchors.checkProgress': { jobId: 'job-2' },
  'anchors.checkCancel': { jobId: 'job-3' },
};

const METHODS = Object.keys(APP_API_SCHEMAS) as SchemaMethod[];

/** The error a validator throws for an input, or a failure when it accepts it. */
function refusal(method: keyof AppApiParams, input: unknown): { message: string; path: string | undefined } {
  try {
    APP_API[method](input);
  } catch (error) {
    expect(error).toBeInstanceOf(ApiInputError);
    const { message, path } = error as ApiInputError;
    return { message, path };
  }
  throw new Error(`${method} accepted ${JSON.stringify(input)?.slice(0, 200)}`);
}

describe('the contract methods validated by their TypeBox schema', () => {
  it('take the valid sample of each method, and answer a copy equal to its typed value', () => {
    for (const method of METHODS) {
      const sample = SAMPLES[method];
      const schema = APP_API_SCHEMAS[method];
      // The sample has the method's type (SAMPLES is typed by AppApiParams) and fits its schema.
      expect(Check(schema, sample ?? {}), method).toBe(true);
      const input = sample === undefined ? undefined : structuredClone(sample);
      const validated = APP_API[method](input);
      expect(validated, method).toEqual(sample);
      if (validated !== undefined) expect(validated, method).not.toBe(input);
      // Absent, null and empty input mean the same for a method without input.
      if (schema === NoInputSchema) {
        expect(APP_API[method]({}), method).toBeUndefined();
        expect(APP_API[method](null), method).toBeUndefined();
      }
    }
  });

  it('have the types of their schemas', () => {
    expectTypeOf<AppApiParams['trust.revoke']>().toEqualTypeOf<{ key_id: string; reason?: string }>();
    expectTypeOf<AppApiParams['reports.get']>().toEqualTypeOf<{ report_id: string; form: 'json' | 'html' | 'pdf' }>();
    expectTypeOf<AppApiParams['apikeys.issue']>().toEqualTypeOf<{ tenant: string; scopes?: 'partner'[] }>();
    expectTypeOf<AppApiParams['anchors.list']['state']>().toEqualTypeOf<
      'verified' | 'verified_with_context' | 'verified_offline' | 'pending' | 'unchecked' | 'failed' | undefined
    >();
    expectTypeOf<AppApiParams['receipts.get']>().toEqualTypeOf<Static<(typeof APP_API_SCHEMAS)['receipts.get']>>();
    expectTypeOf<AppApiParams['info']>().toEqualTypeOf<undefined>();
  });

  it('drop undefined members and fill in defaults', () => {
    expect(APP_API['trust.revoke']({ key_id: 'k', reason: undefined })).toEqual({ key_id: 'k' });
    expect(Object.keys(APP_API['trust.revoke']({ key_id: 'k', reason: undefined }))).toEqual(['key_id']);
    expect(APP_API['trust.audit']({})).toEqual({ limit: 200 });
    expect(APP_API['trust.audit'](undefined)).toEqual({ limit: 200 });
    expect(APP_API['service.start']({})).toEqual({});
    expect(APP_API['service.payments']({})).toEqual({ limit: 200 });
    // The answer is a copy: changing the input afterwards changes nothing validated.
    const input = { tenant: 'acme', scopes: ['partner'] };
    const validated = APP_API['apikeys.issue'](input);
    input.scopes.push('admin');
    expect(validated).toEqual({ tenant: 'acme', scopes: ['partner'] });
  });

  it('refuse what is not an object, for every method', () => {
    for (const method of METHODS) {
      for (const input of [5, 'id', true, [], [SAMPLES[method]]]) {
        expect(refusal(method, input), method).toEqual({ message: 'input must be an object', path: undefined });
      }
    }
  });

  it('refuse unknown, prototype and inherited members at their path, for every method', () => {
    for (const method of METHODS) {
      const sample = SAMPLES[method] ?? {};
      const allowed = Object.keys(APP_API_SCHEMAS[method].properties);
      const suffix = allowed.length ? `; allowed: ${allowed.join(', ')}` : '';
      for (const name of ['extra', '__proto__', 'constructor', 'toString', 'hasOwnProperty', 'a/b~c']) {
        // An own member of that name, as JSON.parse makes one from a body or an IPC message.
        const input: Record<string, unknown> = { ...sample };
        Object.defineProperty(input, name, { value: { polluted: true }, enumerable: true, writable: true });
        expect(refusal(method, input), `${method} ${name}`).toEqual({
          message: `input has an unknown member "${name}"${suffix}`,
          path: name === 'a/b~c' ? '/a~1b~0c' : `/${name}`,
        });
      }
      const parsed: unknown = JSON.parse(`{"__proto__": {"id": 1, "polluted": true}}`);
      expect(refusal(method, parsed), method).toEqual({
        message: `input has an unknown member "__proto__"${suffix}`,
        path: '/__proto__',
      });
      expect(({} as Record<string, unknown>)['polluted']).toBeUndefined();
      // A required member only inherited is missing: own members are the input.
      if (sample !== undefined && Object.keys(sample).length > 0) {
        const required = APP_API_SCHEMAS[method].required ?? [];
        if (required.length > 0) {
          const { path } = refusal(method, Object.create(sample) as unknown);
          expect(path, method).toBe(`/${required[0]}`);
        }
      }
    }
  });

  it('refuse wrong, missing and oversized members in our words, naming the member', () => {
    const huge = 'x'.repeat(8 * 1024 * 1024);
    const cases: [keyof AppApiParams, unknown, string, string][] = [
      ['receipts.get', {}, 'id must be a whole number', '/id'],
      ['receipts.get', { id: '7' }, 'id must be a whole number', '/id'],
      ['receipts.get', { id: 1.5 }, 'id must be a whole number', '/id'],
      ['receipts.get', { id: Number.NaN }, 'id must be a whole number', '/id'],
      ['bundles.get', { id: Infinity }, 'id must be a whole number', '/id'],
      ['anchors.check', { id: 0 }, `id must be between 1 and ${Number.MAX_SAFE_INTEGER}`, '/id'],
      ['anchors.get', { id: 2 ** 53 }, `id must be between 1 and ${Number.MAX_SAFE_INTEGER}`, '/id'],
      ['anchors.ofReceipt', { id: null }, 'id must be a whole number', '/id'],
      ['imports.progress', {}, 'jobId must be a string', '/jobId'],
      ['imports.cancel', { jobId: '' }, 'jobId must not be empty', '/jobId'],
      ['imports.cancel', { jobId: 'j'.repeat(65) }, 'jobId must be at most 64 characters', '/jobId'],
      ['imports.progress', { jobId: huge }, 'jobId must be at most 64 characters', '/jobId'],
      ['trust.revoke', { reason: 'x' }, 'key_id must be a string', '/key_id'],
      ['trust.revoke', { key_id: 'k', reason: 5 }, 'reason must be a string', '/reason'],
      ['trust.revoke', { key_id: 'k', reason: huge }, 'reason must be at most 512 characters', '/reason'],
      ['trust.unpin', { key_id: huge }, 'key_id must be at most 2048 characters', '/key_id'],
      ['trust.unpin', { key_id: ['k'] }, 'key_id must be a string', '/key_id'],
      ['trust.audit', { limit: 0 }, 'limit must be between 1 and 1000', '/limit'],
      ['trust.audit', { limit: '10' }, 'limit must be a whole number', '/limit'],
      ['reports.get', { form: 'pdf' }, 'report_id must be a string', '/report_id'],
      [
        'reports.get',
        { report_id: 'rpt_x', form: 'pdf' },
        'report_id must be a report id (rpt_ and a ULID)',
        '/report_id',
      ],
      ['reports.get', { report_id: huge, form: 'pdf' }, 'report_id must be at most 64 characters', '/report_id'],
      ['reports.get', { report_id: REPORT_A, form: 'docx' }, 'form must be one of json, html, pdf', '/form'],
      ['reports.get', { report_id: REPORT_A }, 'form must be one of json, html, pdf', '/form'],
      [
        'reports.diff',
        { old_report: REPORT_A, new_report: `${REPORT_B}\n` },
        'new_report must be a report id (rpt_ and a ULID)',
        '/new_report',
      ],
      ['service.start', { port: 65536 }, 'port must be between 0 and 65535', '/port'],
      ['service.start', { port: -1 }, 'port must be between 0 and 65535', '/port'],
      ['service.start', { port: '8080' }, 'port must be a whole number', '/port'],
      ['service.payments', { limit: 0 }, 'limit must be between 1 and 1000', '/limit'],
      ['service.payments', { limit: 1001 }, 'limit must be between 1 and 1000', '/limit'],
      [
        'tenants.create',
        { id: 'acme corp', tier: 'pro' },
        'id must be 1 to 64 characters from A-Z a-z 0-9 . _ -',
        '/id',
      ],
      ['tenants.create', { id: 'acme', tier: 'gold' }, 'tier must be one of free, pro, scale, enterprise', '/tier'],
      ['tenants.create', { tier: 'pro' }, 'id must be a string', '/id'],
      ['apikeys.list', { tenant: '../etc' }, 'tenant must be 1 to 64 characters from A-Z a-z 0-9 . _ -', '/tenant'],
      ['apikeys.list', { tenant: 't'.repeat(65) }, 'tenant must be at most 64 characters', '/tenant'],
      ['apikeys.list', { tenant: '' }, 'tenant must not be empty', '/tenant'],
      ['apikeys.issue', {}, 'tenant must be a string', '/tenant'],
      ['apikeys.issue', { tenant: 'acme', scopes: 'partner' }, 'scopes must be a list of partner', '/scopes'],
      ['apikeys.issue', { tenant: 'acme', scopes: ['admin'] }, 'scopes must each be one of partner', '/scopes'],
      ['apikeys.issue', { tenant: 'acme', scopes: [7] }, 'scopes must each be one of partner', '/scopes'],
      ['apikeys.issue', { tenant: 'acme', scopes: ['partner', 'partner'] }, 'scopes names partner twice', '/scopes'],
      [
        'apikeys.issue',
        { tenant: 'acme', scopes: ['partner', 'admin'] },
        'scopes must each be one of partner',
        '/scopes',
      ],
      [
        'apikeys.issue',
        { tenant: 'acme', scopes: Array(1_000_000).fill('partner') },
        'scopes names partner twice',
        '/scopes',
      ],
      [
        'apikeys.revoke',
        { prefix: 'DROP TABLE' },
        'prefix must be a key prefix as listed, like svc_pro_Ab12Cd34',
        '/prefix',
      ],
      ['apikeys.revoke', { prefix: `svc_pro_${'A'.repeat(30)}` }, 'prefix must be at most 32 characters', '/prefix'],
      ['anchors.batches', { limit: 501 }, 'limit must be between 1 and 500', '/limit'],
      ['anchors.batches', { after: huge }, 'after must be at most 2048 characters', '/after'],
      ['anchors.list', { batch_id: '2026-11-23 09:00' }, 'batch_id must be a batch id, YYYY-MM-DDThh:mmZ', '/batch_id'],
      ['anchors.list', { batch_id: huge }, 'batch_id must be at most 17 characters', '/batch_id'],
      [
        'anchors.list',
        { state: 'good' },
        'state must be one of verified, verified_with_context, verified_offline, pending, unchecked, failed',
        '/state',
      ],
    ];
    for (const [method, input, message, path] of cases) {
      expect(refusal(method, input), `${method} ${JSON.stringify(input).slice(0, 80)}`).toEqual({ message, path });
    }
  });

  it('name an unknown member of a hand-written method by its path too', () => {
    expect(refusal('receipts.list', { extra: 1 }).path).toBe('/extra');
    expect(refusal('receipts.list', { filters: { nope: 1 } })).toEqual({
      message:
        'filters has an unknown member "nope"; allowed: format, status, trust, issuer, from, to, text, bundle, anchor',
      path: '/filters/nope',
    });
    expect(refusal('receipts.list', { filters: { anchor: 'maybe' } }).message).toContain('anchor');
    expect(APP_API['receipts.count']({ filters: { anchor: 'failed' } })).toEqual({ filters: { anchor: 'failed' } });
    expect(refusal('settings.set', { chain: { network: 'base' } }).path).toBe('/chain/network');
  });
});

describe('receipts.export', () => {
  it('takes a form, the list filters and order, a cursor and a page of at most 1,000 rows', () => {
    expect(
      APP_API['receipts.export']({ form: 'csv', filters: { status: 'PASS' }, sort: 'issued_at', limit: 1000 }),
    ).toEqual({ form: 'csv', filters: { status: 'PASS' }, sort: 'issued_at', limit: 1000 });
    expect(refusal('receipts.export', { form: 'xlsx' }).message).toBe('form must be one of csv, json');
    expect(refusal('receipts.export', {}).message).toBe('form must be one of csv, json');
    expect(refusal('receipts.export', { form: 'json', limit: 1001 }).message).toMatch(/^limit /);
    expect(refusal('receipts.export', { form: 'json', filters: { nope: 1 } }).path).toBe('/filters/nope');
  });
});

describe('anchors.checkStart', () => {
  it('takes exactly one of filters and batch_id', () => {
    expect(APP_API['anchors.checkStart']({ filters: { anchor: 'pending' } })).toEqual({
      filters: { anchor: 'pending' },
    });
    expect(APP_API['anchors.checkStart']({ filters: {} })).toEqual({ filters: {} });
    expect(APP_API['anchors.checkStart']({ batch_id: '2026-11-23T09:00Z' })).toEqual({ batch_id: '2026-11-23T09:00Z' });
    expect(refusal('anchors.checkStart', {}).message).toContain('exactly one of filters');
    expect(refusal('anchors.checkStart', { filters: {}, batch_id: '2026-11-23T09:00Z' }).message).toContain(
      'exactly one of filters',
    );
    expect(refusal('anchors.checkStart', { batch_id: 'yesterday' }).path).toBe('/batch_id');
    expect(refusal('anchors.checkStart', { filters: { anchor: 'green' } }).message).toContain('anchor');
    // Not a report scope (a report states its filters; this one it cannot state yet).
    expect(refusal('reports.create', { filters: { anchor: 'verified' } })).toEqual({
      message: 'filters.anchor is not a report scope; filter by format, status, trust, issuer, time or text',
      path: '/filters/anchor',
    });
  });
});

describe('verify', () => {
  it('takes a name of at most 512 characters without control or bidirectional formatting characters', () => {
    expect(APP_API.verify({ text: '{}', name: 'receipt.json' })).toEqual({
      text: '{}',
      save: false,
      name: 'receipt.json',
    });
    for (const name of ['evil\u001b[31mRED', 'a\r\nFAKE LINE', 'bell\u0007', 'csi\u009b', 'gnp\u202eexe', 'x\u2028y']) {
      let refused: unknown;
      try {
        APP_API.verify({ text: '{}', name });
      } catch (error) {
        refused = error;
      }
      expect(refused, JSON.stringify(name)).toBeInstanceOf(ApiInputError);
      expect((refused as ApiInputError).path).toBe('/name');
    }
    expect(() => APP_API.verify({ text: '{}', name: 'n'.repeat(513) })).toThrow(ApiInputError);
  });
});

describe('trust.pin key ids (PROTOCOL section 0)', () => {
  const pin = (key_id: unknown) =>
    APP_API['trust.pin']({ key_id, algorithm: 'Ed25519', public_key: '11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo' });

  it('takes any DID and opaque ids of 1 to 256 printable ASCII characters', () => {
    for (const id of ['did:hive:typed-demo', 'did:hive:abc123', 'test-key-001', 'did:svc:acme:k1', 'k'.repeat(256)]) {
      expect(pin(id).key_id).toBe(id);
    }
  });

  it('refuses a bad id with its reason at /key_id', () => {
    const cases: [unknown, RegExp][] = [
      ['test key', /must not contain spaces/],
      ['test\u0000key', /U\+0000, a control character/],
      ['k'.repeat(257), /at most 256 characters; this one has 257/],
      ['', /must not be empty/],
      ['did::x', /method is empty/],
    ];
    for (const [id, reason] of cases) {
      let thrown: unknown;
      try {
        pin(id);
      } catch (error) {
        thrown = error;
      }
      expect(thrown, String(id)).toBeInstanceOf(ApiInputError);
      expect((thrown as ApiInputError).message).toMatch(reason);
      expect((thrown as ApiInputError).path).toBe('/key_id');
    }
  });
});

describe('service.buyKey', () => {
  const DID_KEY = 'did:key:z6MkhaXgBZDvotDkL5257faiztiGiC2QtKLGpbnnEGta2doK';
  const valid = { tier: 'pro', contact: 'buyer@example.com', annual: false, account: 0 };

  it('takes a tier, a contact of each kind, an optional issuer DID, the term and a development account', () => {
    expect(APP_API['service.buyKey'](valid)).toEqual(valid);
    expect(
      APP_API['service.buyKey']({ ...valid, contact: 'example.com', tier: 'scale', annual: true, account: 9 }),
    ).toEqual({ tier: 'scale', contact: 'example.com', annual: true, account: 9 });
    expect(APP_API['service.buyKey']({ ...valid, contact: DID_KEY, issuer_did: 'did:web:agent.example.com' })).toEqual({
      ...valid,
      contact: DID_KEY,
      issuer_did: 'did:web:agent.example.com',
    });
    // An absent issuer DID stays absent (the memo then has no issuer_did member).
    expect(Object.keys(APP_API['service.buyKey']({ ...valid, issuer_did: undefined }))).not.toContain('issuer_did');
  });

  it('refuses each bad field in words, at its path, so the form shows it beside the field', () => {
    const cases: [unknown, string | RegExp, string][] = [
      [{ ...valid, tier: 'enterprise' }, 'enterprise is sold by contact, not on chain; choose pro or scale', '/tier'],
      [{ ...valid, tier: 'free' }, 'tier must be one of pro, scale', '/tier'],
      [{ ...valid, tier: undefined }, 'tier must be one of pro, scale', '/tier'],
      [
        { ...valid, contact: '' },
        'contact is required: an e-mail address, a domain or a did:key the key is delivered to',
        '/contact',
      ],
      [{ ...valid, contact: undefined }, /^contact is required/, '/contact'],
      [{ ...valid, contact: 42 }, 'contact must be a string', '/contact'],
      [{ ...valid, contact: 'not an address' }, /must be an e-mail address, a domain name/, '/contact'],
      [{ ...valid, contact: 'a@b@example.com' }, /not a simple e-mail address/, '/contact'],
      [{ ...valid, contact: 'did:web:example.com' }, /must be an Ed25519 did:key/, '/contact'],
      [{ ...valid, contact: 'did:key:z6Mkbroken' }, /not an Ed25519 did:key/, '/contact'],
      [{ ...valid, contact: `${'a'.repeat(321)}@example.com` }, 'contact must be at most 320 characters', '/contact'],
      [{ ...valid, contact: 'x'.repeat(5_000_000) }, 'contact must be at most 320 characters', '/contact'],
      [{ ...valid, issuer_did: 'agent.example.com' }, /^issuer_did must be a DID/, '/issuer_did'],
      [{ ...valid, issuer_did: 'did:web:a b' }, /^issuer_did must be a DID/, '/issuer_did'],
      [
        { ...valid, issuer_did: `did:web:${'a'.repeat(600)}` },
        'issuer_did must be at most 512 characters',
        '/issuer_did',
      ],
      [{ ...valid, issuer_did: '' }, 'issuer_did must not be empty', '/issuer_did'],
      [{ ...valid, annual: 'yes' }, 'annual must be true (a year, ten months’ price) or false (a month)', '/annual'],
      [{ ...valid, annual: undefined }, /^annual must be true/, '/annual'],
      [{ ...valid, account: 10 }, 'account must be between 0 and 9', '/account'],
      [{ ...valid, account: -1 }, 'account must be between 0 and 9', '/account'],
      [{ ...valid, account: 1.5 }, 'account must be a whole number', '/account'],
      [{ ...valid, account: undefined }, 'account is required: the development account that pays, 0 to 9', '/account'],
      [{ ...valid, private_key: '0x01' }, /^input has an unknown member "private_key"/, '/private_key'],
      [{ ...valid, amount: 1 }, /^input has an unknown member "amount"/, '/amount'],
    ];
    for (const [input, message, path] of cases) {
      const refused = refusal('service.buyKey', input);
      const label = JSON.stringify(input).slice(0, 100);
      if (typeof message === 'string') expect(refused.message, label).toBe(message);
      else expect(refused.message, label).toMatch(message);
      expect(refused.path, label).toBe(path);
    }
    expect(refusal('service.buyKey', 'pro')).toEqual({ message: 'input must be an object', path: undefined });
  });
});
