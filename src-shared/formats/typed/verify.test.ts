import { fromPlain } from '../../json';
import { describe, expect, it } from 'vitest';
import { createPortableProvider, didKeyFromEd25519 } from '../../crypto';
import { createVerifyContext, type KeyEntry, type VerifyContext } from '../../verify/context';
import type { JsonObject } from '../../verify/fields';
import { ed25519KeyEntry } from '../../verify/keys';
import type { Report } from '../../verify/report';
import { signRuleD1 } from '../../verify/signature';
import { verifyDocument } from '../../verify/verify';
import { TYPED_CONTRACT_TYPES, TYPED_ROUTE_KINDS, type TypedContractType, type TypedRouteKind } from './contract-types';
import { buildSigrChain, signSigrLink, signTypedContract } from './sign';
import { sigrLinkSha256 } from './sigr';
import { detectTypedContract, verifyTypedContract, verifyTypedRequest } from './verify';

const crypto = createPortableProvider();
const now = new Date('2026-06-01T00:00:00Z');
const seed = new Uint8Array(32).fill(1);
const forgerSeed = new Uint8Array(32).fill(2);
const keyId = 'did:svc:evroom:typed';
const keyEntry = ed25519KeyEntry(crypto, keyId, seed);
const linkSigners = [6, 7, 8].map((fill, index) => ({
  key_id: `did:svc:evroom:s${index}`,
  seed: new Uint8Array(32).fill(fill),
}));
const advertised: KeyEntry[] = [
  keyEntry,
  ...linkSigners.map((signer) => ed25519KeyEntry(crypto, signer.key_id, signer.seed)),
];
const ctx = createVerifyContext(crypto, { now, advertised });
const ISSUED = '2026-03-01T12:00:00.000Z';
const hex = (pair: string): string => pair.repeat(32);

/** One contract type: a valid body, a tamper, the rule broken, and the rule's edge that passes. */
interface Fixture {
  body(): JsonObject;
  /** A change that keeps the body schema-valid and its rule satisfied. */
  tamper(body: JsonObject): void;
  /** A change that breaks the semantic rule (the contract is then re-signed). */
  breakRule(body: JsonObject): void;
  rule: { check: string; code: string; path: string };
  /** A change to the rule's edge that must still pass. */
  edge(body: JsonObject): void;
  /** The check the edge exercises, when not the rule's. */
  edgeCheck?: string;
}

const statements = [hex('01'), hex('02'), hex('03')];

const FIXTURES: Record<TypedContractType, Fixture> = {
  'authority.delegation': {
    body: () => ({
      delegator: 'did:web:acme.example',
      delegate: 'did:web:agent.example',
      scope: ['receipts:read', 'receipts:verify'],
      not_before: '2026-01-01T00:00:00Z',
      not_after: '2026-12-31T23:59:59Z',
    }),
    tamper: (body) => (body['scope'] = ['receipts:read', 'receipts:write']),
    breakRule: (body) => (body['not_after'] = body['not_before'] as string),
    rule: { check: 'rule.window_ordered', code: 'window_not_ordered', path: '/body/not_after' },
    // One nanosecond is enough: instants are ordered at full precision.
    edge: (body) => (body['not_after'] = '2026-01-01T00:00:00.000000001Z'),
  },
  'proof.demand': {
    body: () => ({
      demander: 'did:web:auditor.example',
      respondent: 'did:web:acme.example',
      subject_sha256: hex('ab'),
      required: ['receipt', 'anchor'],
      due_by: '2026-03-08T12:00:00.000Z',
    }),
    tamper: (body) => (body['required'] = ['receipt']),
    breakRule: (body) => (body['due_by'] = ISSUED),
    rule: { check: 'rule.due_after_issued', code: 'due_not_after_issued', path: '/body/due_by' },
    edge: (body) => (body['due_by'] = '2026-03-01T12:00:00.001Z'),
  },
  'imprimatur.clearance': {
    body: () => ({
      artifact_sha256: hex('ab'),
      approver: 'did:web:compliance.example',
      policy_sha256: hex('cd'),
      decision: 'conditional',
      conditions: ['Retain for seven years'],
    }),
    tamper: (body) => (body['artifact_sha256'] = hex('ef')),
    breakRule: (body) => delete body['conditions'],
    rule: { check: 'rule.conditions_iff_conditional', code: 'conditions_missing', path: '/body/conditions' },
    edge: (body) => {
      body['decision'] = 'cleared';
      delete body['conditions'];
    },
  },
  'sigr.chain': {
    body: () => ({ links: buildSigrChain(statements, linkSigners, crypto) }),
    tamper: (body) => ((body['links'] as JsonObject[]).pop(), undefined),
    // The last link points at the wrong predecessor but is validly signed.
    breakRule: (body) => {
      const links = body['links'] as JsonObject[];
      const signer = linkSigners[2]!;
      links[2] = signSigrLink(
        { signer_key_id: signer.key_id, prev_sha256: hex('99'), statement_sha256: statements[2]! },
        signer.seed,
        crypto,
      );
    },
    rule: { check: 'link[2].prev', code: 'prev_mismatch', path: '/body/links/2/prev_sha256' },
    edge: (body) => (body['links'] = buildSigrChain(statements.slice(0, 1), linkSigners.slice(0, 1), crypto)),
    edgeCheck: 'link[0].prev',
  },
  'divergence.record': {
    body: () => ({
      expected_sha256: hex('aa'),
      observed_sha256: hex('bb'),
      subject: 'urn:evroom:artifact:42',
      severity: 'high',
      detected_at: '2026-02-28T10:00:00Z',
    }),
    tamper: (body) => (body['severity'] = 'low'),
    breakRule: (body) => (body['observed_sha256'] = body['expected_sha256'] as string),
    rule: { check: 'rule.digests_differ', code: 'digests_equal', path: '/body/observed_sha256' },
    edge: (body) => (body['observed_sha256'] = `${'a'.repeat(63)}b`),
  },
  'effect.closure': {
    body: () => ({
      effect_id: 'eff-0001',
      origin_receipt_sha256: hex('12'),
      outcome: 'succeeded',
      closed_at: '2026-03-01T13:00:00Z',
    }),
    tamper: (body) => (body['outcome'] = 'failed'),
    breakRule: (body) => (body['closed_at'] = '2026-03-01T11:59:59.999Z'),
    rule: { check: 'rule.closed_not_before_issued', code: 'closed_before_issued', path: '/body/closed_at' },
    edge: (body) => (body['closed_at'] = ISSUED),
  },
  'proof.transition': {
    body: () => ({
      subject: 'urn:evroom:proof:7',
      from_state: 'pending',
      to_state: 'verified',
      at: '2026-03-01T12:00:00Z',
    }),
    tamper: (body) => (body['to_state'] = 'rejected'),
    breakRule: (body) => {
      body['from_state'] = 'verified';
      body['to_state'] = 'pending';
    },
    rule: { check: 'rule.transition_allowed', code: 'transition_not_allowed', path: '/body/to_state' },
    edge: (body) => {
      body['from_state'] = 'verified';
      body['to_state'] = 'revoked';
    },
  },
};

function contractOf(
  type: TypedContractType,
  body: JsonObject,
  extra: { algorithm?: string; key?: string; signWith?: Uint8Array } = {},
): JsonObject {
  const fields = {
    contract_type: type,
    contract_id: `c-${type}`,
    issued_at: ISSUED,
    issuer: 'did:web:acme.example',
    body,
  };
  return signTypedContract(
    extra.algorithm === undefined ? fields : { ...fields, algorithm: extra.algorithm },
    extra.signWith ?? seed,
    extra.key ?? keyId,
    crypto,
  );
}

function verify(contract: JsonObject, context: VerifyContext = ctx): Report {
  return verifyDocument(JSON.stringify(contract), context);
}

function checkOf(report: Report, id: string): string | undefined {
  return report.checks.find((check) => check.id === id)?.status;
}

function errorsOf(report: Report): [string, string][] {
  return report.errors.map((error) => [error.code, error.path]);
}

describe.each(TYPED_CONTRACT_TYPES.map((type) => [type, FIXTURES[type]] as const))('%s', (type, fixture) => {
  const valid = contractOf(type, fixture.body());

  it('a valid contract is PASS, format typed/<contract_type>, every check listed', () => {
    const report = verify(valid);
    expect(report.format).toBe(`typed/${type}`);
    expect(report.status).toBe('PASS');
    expect(report.errors).toEqual([]);
    expect(report.trust).toMatchObject({ status: 'unpinned', key_id: keyId });
    expect(report.checks.slice(0, 4).map((check) => [check.id, check.status])).toEqual([
      ['schema', 'pass'],
      ['algorithm', 'pass'],
      ['payload_sha256', 'pass'],
      ['signature', 'pass'],
    ]);
    expect(checkOf(report, fixture.rule.check)).toBe('pass');
  });

  it('a pinned key makes trust trusted; a revoked pin keeps PASS with trust revoked', () => {
    const pinned: KeyEntry = { ...keyEntry, label: 'Typed issuer', status: 'pinned' };
    const trusted = verify(valid, { ...ctx, pinned: [pinned] });
    expect(trusted.status).toBe('PASS');
    expect(trusted.trust).toMatchObject({ status: 'trusted', key_id: keyId, label: 'Typed issuer' });
    const revoked = verify(valid, { ...ctx, pinned: [{ ...pinned, status: 'revoked' }] });
    expect(revoked.status).toBe('PASS');
    expect(revoked.trust.status).toBe('revoked');
  });

  it('a tampered body is MISMATCH at /payload_sha256', () => {
    const tampered = structuredClone(valid);
    fixture.tamper(tampered['body'] as JsonObject);
    const report = verify(tampered);
    expect(report.status).toBe('MISMATCH');
    expect(checkOf(report, 'payload_sha256')).toBe('fail');
    expect(errorsOf(report)).toContainEqual(['digest_mismatch', '/payload_sha256']);
  });

  it('a forged signature over the right digest is INVALID at /sig_b64u', () => {
    const forged = {
      ...valid,
      sig_b64u: contractOf(type, fixture.body(), { signWith: forgerSeed })['sig_b64u'] as string,
    };
    const report = verify(forged);
    expect(report.status).toBe('INVALID');
    expect(checkOf(report, 'payload_sha256')).toBe('pass');
    expect(checkOf(report, 'signature')).toBe('fail');
    expect(errorsOf(report)).toContainEqual(['signature_invalid', '/sig_b64u']);
  });

  it('a duplicate member name is MALFORMED with its path, in a document and in a request', () => {
    const body = valid['body'] as JsonObject;
    const [first] = Object.keys(body);
    const text = JSON.stringify(valid).replace(
      '"body":{',
      `"body":{${JSON.stringify(first)}:${JSON.stringify(body[first!])},`,
    );
    const report = verifyDocument(text, ctx);
    expect(report.status).toBe('MALFORMED');
    expect(errorsOf(report)).toEqual([['duplicate_name', `/body/${first}`]]);
    const kind = Object.keys(TYPED_ROUTE_KINDS).find(
      (route) => TYPED_ROUTE_KINDS[route as TypedRouteKind] === type,
    ) as TypedRouteKind;
    const request = verifyTypedRequest(`{"contract":${text}}`, kind, ctx);
    expect(request.status).toBe('MALFORMED');
    expect(request.format).toBe(`typed/${type}`);
    expect(errorsOf(request)).toEqual([['duplicate_name', `/contract/body/${first}`]]);
  });

  it('algorithm Ed448 is UNSUPPORTED, not MALFORMED, and the signature is not executed', () => {
    const report = verify(contractOf(type, fixture.body(), { algorithm: 'Ed448' }));
    expect(report.status).toBe('UNSUPPORTED');
    expect(checkOf(report, 'algorithm')).toBe('unsupported');
    expect(checkOf(report, 'signature')).toBe('unsupported');
    expect(checkOf(report, 'payload_sha256')).toBe('unchecked');
    expect(errorsOf(report)).toContainEqual(['unsupported_algorithm', '/algorithm']);
    // Nothing was verified under the key, so it is not vouched for.
    expect(report.trust).toMatchObject({ status: 'not_applicable', key_id: keyId });
  });

  it('an unknown key_id is INDETERMINATE with the signature unavailable', () => {
    const report = verify(contractOf(type, fixture.body(), { key: 'did:svc:evroom:nobody' }));
    expect(report.status).toBe('INDETERMINATE');
    expect(checkOf(report, 'signature')).toBe('unavailable');
    expect(errorsOf(report)).toContainEqual(['key_unavailable', '/key_id']);
    expect(report.trust).toMatchObject({ status: 'unpinned', key_id: 'did:svc:evroom:nobody' });
  });

  it('a did:key signer resolves offline: PASS, trust unpinned', () => {
    const didKey = didKeyFromEd25519(crypto.ed25519PublicKey(seed));
    const report = verify(
      contractOf(type, fixture.body(), { key: didKey }),
      createVerifyContext(crypto, { now, advertised: advertised.slice(1) }),
    );
    expect(report.status).toBe('PASS');
    expect(report.trust).toMatchObject({ status: 'unpinned', key_id: didKey });
  });

  it(`breaking the rule is MISMATCH on its own check (${fixture.rule.check})`, () => {
    const body = fixture.body();
    fixture.breakRule(body);
    const report = verify(contractOf(type, body));
    expect(report.status).toBe('MISMATCH');
    expect(checkOf(report, 'signature')).toBe('pass');
    expect(checkOf(report, fixture.rule.check)).toBe('fail');
    expect(errorsOf(report)).toEqual([[fixture.rule.code, fixture.rule.path]]);
  });

  it('the edge of the rule passes', () => {
    const body = fixture.body();
    fixture.edge(body);
    const report = verify(contractOf(type, body));
    expect(report.status).toBe('PASS');
    expect(checkOf(report, fixture.edgeCheck ?? fixture.rule.check)).toBe('pass');
  });

  it('an unknown body member is MALFORMED at its path; signature and rules are unchecked', () => {
    const report = verify(contractOf(type, { ...fixture.body(), extra: 'x' }));
    expect(report.status).toBe('MALFORMED');
    expect(errorsOf(report)).toEqual([['unknown_property', '/body/extra']]);
    expect(checkOf(report, 'signature')).toBe('unchecked');
    expect(checkOf(report, fixture.rule.check)).toBe('unchecked');
  });

  it('through its route a contract of another type is MALFORMED', () => {
    const otherType = TYPED_CONTRACT_TYPES.find((candidate) => candidate !== type)!;
    const other = contractOf(otherType, FIXTURES[otherType].body());
    const expected = verifyTypedContract(other, { expectedContractType: type }, ctx);
    expect(expected.status).toBe('MALFORMED');
    expect(expected.format).toBe(`typed/${type}`);
    expect(errorsOf(expected)).toContainEqual(['contract_type_mismatch', '/contract_type']);
    expect(verifyTypedContract(valid, { expectedContractType: type }, ctx).status).toBe('PASS');
  });
});

describe('typed contract envelope', () => {
  const valid = contractOf('proof.demand', FIXTURES['proof.demand'].body());

  it('names its key by any DID method or an opaque id (PROTOCOL section 0)', () => {
    for (const key of ['did:hive:typed-demo', 'test-key-001']) {
      const contract = contractOf('proof.demand', FIXTURES['proof.demand'].body(), { key });
      const given = createVerifyContext(crypto, { now, advertised: [ed25519KeyEntry(crypto, key, seed)] });
      expect(verify(contract, given)).toMatchObject({ status: 'PASS', trust: { status: 'unpinned', key_id: key } });
      // No key known for the name: INDETERMINATE, not MALFORMED.
      expect(verify(contract).status).toBe('INDETERMINATE');
    }
  });

  it('is recognized by contract_type, schema and body; an unknown contract_type is MALFORMED as typed/unknown', () => {
    expect(detectTypedContract(fromPlain(valid))).toBe('typed/proof.demand');
    expect(detectTypedContract(fromPlain({ contract_type: 'x', schema: 'r1.0.0' }))).toBeUndefined();
    const unknown = signRuleD1({ ...valid, contract_type: 'proof.anything' }, seed, crypto);
    const report = verify(unknown);
    expect(report.format).toBe('typed/unknown');
    expect(report.status).toBe('MALFORMED');
    expect(errorsOf(report)).toEqual([['not_allowed_value', '/contract_type']]);
  });

  it.each<[string, (contract: JsonObject) => void, string, string]>([
    ['schema r2.0.0', (contract) => (contract['schema'] = 'r2.0.0'), 'not_allowed_value', '/schema'],
    [
      'issued_at not on the calendar',
      (contract) => (contract['issued_at'] = '2026-02-30T00:00:00Z'),
      'invalid_timestamp',
      '/issued_at',
    ],
    [
      'issued_at with an offset',
      (contract) => (contract['issued_at'] = '2026-03-01T12:00:00+00:00'),
      'pattern_mismatch',
      '/issued_at',
    ],
    ['issuer not a DID', (contract) => (contract['issuer'] = 'Acme Corp'), 'pattern_mismatch', '/issuer'],
    ['key_id with a space', (contract) => (contract['key_id'] = 'k 1'), 'pattern_mismatch', '/key_id'],
    ['key_id did: with an empty method', (contract) => (contract['key_id'] = 'did::k1'), 'pattern_mismatch', '/key_id'],
    ['key_id of 257 characters', (contract) => (contract['key_id'] = 'k'.repeat(257)), 'too_long', '/key_id'],
    [
      'a did:key that does not decode',
      (contract) => (contract['key_id'] = 'did:key:z6Mk1'),
      'invalid_key_id',
      '/key_id',
    ],
    ['contract_id with a space', (contract) => (contract['contract_id'] = 'c 1'), 'pattern_mismatch', '/contract_id'],
    ['an unknown member', (contract) => (contract['note'] = 'x'), 'unknown_property', '/note'],
    [
      'a body TS not on the calendar',
      (contract) => ((contract['body'] as JsonObject)['due_by'] = '2026-13-01T00:00:00Z'),
      'invalid_timestamp',
      '/body/due_by',
    ],
    [
      'a missing body member',
      (contract) => delete (contract['body'] as JsonObject)['required'],
      'missing_property',
      '/body/required',
    ],
    [
      'an empty required list',
      (contract) => ((contract['body'] as JsonObject)['required'] = []),
      'too_few_items',
      '/body/required',
    ],
    [
      'a repeated required item',
      (contract) => ((contract['body'] as JsonObject)['required'] = ['a', 'a']),
      'duplicate_items',
      '/body/required',
    ],
  ])('%s is MALFORMED', (_name, change, code, path) => {
    const contract = structuredClone(valid);
    change(contract);
    const report = verify(signRuleD1(contract, seed, crypto));
    expect(report.status).toBe('MALFORMED');
    expect(errorsOf(report)).toContainEqual([code, path]);
  });

  it('a missing payload_sha256 is MALFORMED, not a digest mismatch', () => {
    const { payload_sha256: _digest, ...rest } = valid;
    const report = verify(rest);
    expect(report.status).toBe('MALFORMED');
    expect(errorsOf(report)).toEqual([['missing_property', '/payload_sha256']]);
  });

  it('severity is one of low, medium, high, critical', () => {
    for (const severity of ['low', 'medium', 'high', 'critical']) {
      expect(
        verify(contractOf('divergence.record', { ...FIXTURES['divergence.record'].body(), severity })).status,
      ).toBe('PASS');
    }
    const report = verify(
      contractOf('divergence.record', { ...FIXTURES['divergence.record'].body(), severity: 'severe' }),
    );
    expect(errorsOf(report)).toEqual([['not_allowed_value', '/body/severity']]);
  });

  it('a cleared or denied decision with conditions is MISMATCH', () => {
    for (const decision of ['cleared', 'denied']) {
      const report = verify(
        contractOf('imprimatur.clearance', { ...FIXTURES['imprimatur.clearance'].body(), decision }),
      );
      expect(report.status).toBe('MISMATCH');
      expect(errorsOf(report)).toEqual([['conditions_not_allowed', '/body/conditions']]);
    }
  });

  it('only pending->verified, pending->rejected and verified->revoked are allowed transitions', () => {
    const states = ['pending', 'verified', 'rejected', 'revoked'];
    const allowed: string[] = [];
    for (const from_state of states) {
      for (const to_state of states) {
        const body = { ...FIXTURES['proof.transition'].body(), from_state, to_state };
        const report = verify(contractOf('proof.transition', body));
        if (report.status === 'PASS') allowed.push(`${from_state}->${to_state}`);
        else expect(report.status).toBe('MISMATCH');
      }
    }
    expect(allowed).toEqual(['pending->verified', 'pending->rejected', 'verified->revoked']);
  });

  it('prior_sha256 of a transition is listed unchecked, never passed', () => {
    const report = verify(
      contractOf('proof.transition', { ...FIXTURES['proof.transition'].body(), prior_sha256: hex('77') }),
    );
    expect(report.status).toBe('PASS');
    expect(report.checks.find((check) => check.id === 'rule.prior')).toMatchObject({ status: 'unchecked' });
  });

  it('a rule failure outranks a bad signature: MISMATCH', () => {
    const body = FIXTURES['effect.closure'].body();
    FIXTURES['effect.closure'].breakRule(body);
    const broken = contractOf('effect.closure', body);
    const forged = {
      ...broken,
      sig_b64u: contractOf('effect.closure', body, { signWith: forgerSeed })['sig_b64u'] as string,
    };
    const report = verify(forged);
    expect(report.status).toBe('MISMATCH');
    expect(checkOf(report, 'signature')).toBe('fail');
  });
});

describe('verifyTypedRequest', () => {
  const valid = contractOf('effect.closure', FIXTURES['effect.closure'].body());

  it('verifies {contract} for its route, paths relative to the request', () => {
    expect(verifyTypedRequest(JSON.stringify({ contract: valid }), 'effect-closure', ctx).status).toBe('PASS');
    const tampered = { ...valid, contract_id: 'c-other' };
    const report = verifyTypedRequest(JSON.stringify({ contract: tampered }), 'effect-closure', ctx);
    expect(report.status).toBe('MISMATCH');
    expect(errorsOf(report)).toContainEqual(['digest_mismatch', '/contract/payload_sha256']);
  });

  it('a contract of another type than the route is MALFORMED', () => {
    const report = verifyTypedRequest(JSON.stringify({ contract: valid }), 'proof-transition', ctx);
    expect(report.status).toBe('MALFORMED');
    expect(report.format).toBe('typed/proof.transition');
    expect(errorsOf(report)).toContainEqual(['contract_type_mismatch', '/contract/contract_type']);
  });

  it.each<[string, string, string, string]>([
    ['not an object', '[]', 'invalid_type', ''],
    ['no contract', '{}', 'missing_property', '/contract'],
    ['an unknown member', `{"contract":${JSON.stringify(valid)},"extra":1}`, 'unknown_property', '/extra'],
    ['parents not an array', `{"contract":${JSON.stringify(valid)},"parents":{}}`, 'wrong_type', '/parents'],
    ['trailing comma', '{"contract":{},}', 'trailing_comma', ''],
  ])('%s is MALFORMED', (_name, text, code, path) => {
    const report = verifyTypedRequest(text, 'effect-closure', ctx);
    expect(report.status).toBe('MALFORMED');
    expect(report.format).toBe('typed/effect.closure');
    expect(report.errors.map((error) => error.code)).toContain(code);
    if (code !== 'trailing_comma') expect(errorsOf(report)).toContainEqual([code, path]);
  });

  it('parents with a contract that is not a delegation are refused, not ignored', () => {
    const report = verifyTypedRequest(JSON.stringify({ contract: valid, parents: [valid] }), 'effect-closure', ctx);
    expect(report.status).toBe('MALFORMED');
    expect(errorsOf(report)).toEqual([['parents_not_applicable', '/parents']]);
  });

  it('refuses an unknown route kind and bad arguments', () => {
    expect(() => verifyTypedRequest('{}', 'nope' as TypedRouteKind, ctx)).toThrow(RangeError);
    expect(() => verifyTypedRequest(42 as unknown as string, 'effect-closure', ctx)).toThrow(TypeError);
    expect(() => verifyTypedContract(valid, { parents: {} as unknown as [] }, ctx)).toThrow(TypeError);
    expect(() => verifyTypedContract(valid, { expectedContractType: 'x' as TypedContractType }, ctx)).toThrow(
      RangeError,
    );
    expect(() => verifyTypedContract(valid, {}, { ...ctx, now: new Date(Number.NaN) })).toThrow(TypeError);
  });
});

describe('sigr.chain links', () => {
  const [first, second, third] = linkSigners as [
    (typeof linkSigners)[0],
    (typeof linkSigners)[0],
    (typeof linkSigners)[0],
  ];
  const chainOf = (links: JsonObject[]): JsonObject => contractOf('sigr.chain', { links });
  const link = (signer: typeof first, prev: string, statement: string, signWith = signer.seed): JsonObject =>
    signSigrLink({ signer_key_id: signer.key_id, prev_sha256: prev, statement_sha256: statement }, signWith, crypto);

  it('a chain of 3 links is PASS with two checks per link', () => {
    const report = verify(chainOf(buildSigrChain(statements, linkSigners, crypto)));
    expect(report.status).toBe('PASS');
    expect(report.checks.slice(4).map((check) => [check.id, check.status])).toEqual([
      ['link[0].prev', 'pass'],
      ['link[0].signature', 'pass'],
      ['link[1].prev', 'pass'],
      ['link[1].signature', 'pass'],
      ['link[2].prev', 'pass'],
      ['link[2].signature', 'pass'],
    ]);
    expect(report.checks.find((check) => check.id === 'link[1].signature')?.detail).toContain(
      'did:svc:evroom:s1 (advertised, trust unpinned)',
    );
  });

  it('a broken prev is MISMATCH on that link only', () => {
    const zero = link(first, '0'.repeat(64), statements[0]!);
    const wrong = link(second, hex('99'), statements[1]!);
    const last = link(third, sigrLinkSha256(wrong, crypto), statements[2]!);
    const report = verify(chainOf([zero, wrong, last]));
    expect(report.status).toBe('MISMATCH');
    expect(report.checks.filter((check) => check.status !== 'pass').map((check) => check.id)).toEqual(['link[1].prev']);
    expect(errorsOf(report)).toEqual([['prev_mismatch', '/body/links/1/prev_sha256']]);
  });

  it('the first link must start from 64 zeros', () => {
    const report = verify(chainOf([link(first, hex('00').replace(/0$/, '1'), statements[0]!)]));
    expect(report.status).toBe('MISMATCH');
    expect(errorsOf(report)).toEqual([['prev_mismatch', '/body/links/0/prev_sha256']]);
  });

  it('prev is the hash of the whole previous link, sig_b64u included', () => {
    const zero = link(first, '0'.repeat(64), statements[0]!);
    const { sig_b64u: _signature, ...unsigned } = zero;
    const report = verify(chainOf([zero, link(second, sigrLinkSha256(unsigned, crypto), statements[1]!)]));
    expect(report.status).toBe('MISMATCH');
    expect(errorsOf(report)).toEqual([['prev_mismatch', '/body/links/1/prev_sha256']]);
  });

  it('a bad link signature is INVALID on that link', () => {
    const zero = link(first, '0'.repeat(64), statements[0]!);
    const forged = link(second, sigrLinkSha256(zero, crypto), statements[1]!, forgerSeed);
    const last = link(third, sigrLinkSha256(forged, crypto), statements[2]!);
    const report = verify(chainOf([zero, forged, last]));
    expect(report.status).toBe('INVALID');
    expect(report.checks.filter((check) => check.status !== 'pass').map((check) => check.id)).toEqual([
      'link[1].signature',
    ]);
    expect(errorsOf(report)).toEqual([['signature_invalid', '/body/links/1/sig_b64u']]);
  });

  it('an unresolvable signer leaves that link unavailable: INDETERMINATE', () => {
    const nobody = { key_id: 'did:svc:evroom:nobody', seed: forgerSeed };
    const links = buildSigrChain(statements, [first, second, nobody], crypto);
    const report = verify(chainOf(links));
    expect(report.status).toBe('INDETERMINATE');
    expect(report.checks.find((check) => check.id === 'link[2].signature')).toMatchObject({ status: 'unavailable' });
    expect(errorsOf(report)).toEqual([['key_unavailable', '/body/links/2/signer_key_id']]);
    expect(report.trust).toMatchObject({ status: 'unpinned', key_id: keyId });
  });

  it('a did:key link signer resolves offline', () => {
    const didKeySigner = { key_id: didKeyFromEd25519(crypto.ed25519PublicKey(forgerSeed)), seed: forgerSeed };
    expect(verify(chainOf(buildSigrChain(statements, [first, didKeySigner, third], crypto))).status).toBe('PASS');
  });

  it('a link with an unknown member or a non-canonical signature is MALFORMED at its path', () => {
    const links = buildSigrChain(statements, linkSigners, crypto);
    links[1] = { ...links[1]!, note: 'x' };
    expect(errorsOf(verify(chainOf(links)))).toEqual([['unknown_property', '/body/links/1/note']]);
    const again = buildSigrChain(statements, linkSigners, crypto);
    const signature = again[0]!['sig_b64u'] as string;
    // The last of 86 characters carries 4 unused bits; setting one gives another text for the same bytes.
    const last = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_'.indexOf(signature.at(-1)!);
    again[0] = {
      ...again[0]!,
      sig_b64u: signature.slice(0, -1) + 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_'[last | 1],
    };
    const report = verify(chainOf(again));
    expect(report.status).toBe('MALFORMED');
    expect(errorsOf(report)).toContainEqual(['invalid_signature_encoding', '/body/links/0/sig_b64u']);
  });
});
