/**
 * Conformance cases: documents made with real keys, each with the report it must produce.
 *
 * The same cases run against every crypto provider (the portable one in src-shared's tests, the
 * node:crypto one in src-main's), so both paths are held to identical answers. They also serve as
 * samples for the CLI and benchmarks. Everything is deterministic: fixed seeds, fixed IVs and a
 * fixed clock.
 */
import { b64uEncode, didKeyFromEd25519 } from '../crypto';
import type { CryptoProvider } from '../crypto/provider';
import { signClassical } from '../formats/classical/sign';
import { countersign, inclusionAnswer, type CountersignedEntry } from '../formats/countersigner/sign';
import { fromPlain } from '../json';
import { signEnvelope } from '../formats/envelope/sign';
import { sealDocument } from '../formats/sealed/sign';
import { createVerifyContext, type KeyEntry, type SecretEntry, type VerifyContext } from './context';
import type { JsonObject } from './fields';
import { ed25519KeyEntry } from './keys';
import type { ReportFormat, ReportStatus, TrustStatus } from './report';

/** The expected outcome of one case. */
export interface ConformanceExpectation {
  format: ReportFormat;
  status: ReportStatus;
  trust: TrustStatus;
  /** An error code the report must contain, with its JSON Pointer when given. */
  error?: { code: string; path?: string };
  /** The inner report's status (sealed documents). */
  innerStatus?: ReportStatus;
  /** For `unattributed` trust: the key the document names, which did not sign it. */
  claimedKeyId?: string;
}

/** One document, the context to verify it in, and what the report must say. */
export interface ConformanceCase {
  name: string;
  input: string;
  ctx: VerifyContext;
  expect: ConformanceExpectation;
}

/** The instant every case is judged at. */
export const CONFORMANCE_NOW = new Date('2026-06-01T00:00:00.000Z');

/**
 * A deterministic 32-byte test seed (never use outside tests and samples).
 *
 * @param fill - The byte value to fill with.
 * @returns 32 bytes of `fill`.
 */
export function testSeed(fill: number): Uint8Array {
  return new Uint8Array(32).fill(fill);
}

/**
 * Build every conformance case with the given provider.
 *
 * @param crypto - The provider used to sign and to verify.
 * @returns The cases, named `<format>: <situation>`.
 */
export function buildConformanceCases(crypto: CryptoProvider): ConformanceCase[] {
  return [
    ...classicalCases(crypto),
    ...countersignerCases(crypto),
    ...sealedCases(crypto),
    ...envelopeCases(crypto),
    ...genericCases(crypto),
  ];
}

function outcome(
  format: ReportFormat,
  status: ReportStatus,
  trust: TrustStatus,
  code?: string,
  path?: string,
  innerStatus?: ReportStatus,
): ConformanceExpectation {
  const expectation: ConformanceExpectation = { format, status, trust };
  if (code !== undefined) expectation.error = path === undefined ? { code } : { code, path };
  if (innerStatus !== undefined) expectation.innerStatus = innerStatus;
  return expectation;
}

function context(crypto: CryptoProvider, options: Partial<Omit<VerifyContext, 'crypto'>> = {}): VerifyContext {
  return createVerifyContext(crypto, { now: CONFORMANCE_NOW, ...options });
}

function pinnedBySeed(
  crypto: CryptoProvider,
  keyId: string,
  seed: Uint8Array,
  extra: Partial<KeyEntry> = {},
): KeyEntry {
  return { ...ed25519KeyEntry(crypto, keyId, seed), label: `Test key ${keyId}`, status: 'pinned', ...extra };
}

function classicalCases(crypto: CryptoProvider): ConformanceCase[] {
  const seed = testSeed(1);
  const payload = { receipt_id: 'r-1', sequence: 7, amount: '12.00', items: [1, 2, 3] };
  const valid = signClassical(payload, seed, crypto);
  const pinned = pinnedBySeed(crypto, 'did:svc:test:classical', seed);
  const expectPass = (trust: TrustStatus): ConformanceExpectation => ({ format: 'classical', status: 'PASS', trust });
  const modified = (change: (doc: JsonObject) => void): string => {
    const copy = JSON.parse(valid) as JsonObject;
    change(copy);
    return JSON.stringify(copy);
  };
  const otherSignature = JSON.parse(signClassical(payload, testSeed(2), crypto)) as JsonObject;
  const lexemes = signClassical('{"sequence":1,"price":1.50,"big":12345678901234567890}', seed, crypto, {
    rawPayload: false,
  });
  return [
    { name: 'classical: valid, key unpinned', input: valid, ctx: context(crypto), expect: expectPass('unpinned') },
    {
      name: 'classical: valid, key pinned by its bytes',
      input: valid,
      ctx: context(crypto, { pinned: [pinned] }),
      expect: expectPass('trusted'),
    },
    {
      name: 'classical: valid, pinned key revoked',
      input: valid,
      ctx: context(crypto, { pinned: [{ ...pinned, status: 'revoked' }] }),
      expect: expectPass('revoked'),
    },
    {
      name: 'classical: valid, pinned key expired',
      input: valid,
      ctx: context(crypto, { pinned: [{ ...pinned, not_after: '2026-01-01T00:00:00.000Z' }] }),
      expect: expectPass('expired'),
    },
    {
      name: 'classical: valid, pinned key not yet valid',
      input: valid,
      ctx: context(crypto, { pinned: [{ ...pinned, not_before: '2027-01-01T00:00:00Z' }] }),
      expect: expectPass('expired'),
    },
    {
      name: 'classical: advertised keys never make trust trusted',
      input: valid,
      ctx: context(crypto, { advertised: [pinned] }),
      expect: expectPass('unpinned'),
    },
    {
      name: 'classical: number spellings are signed as written',
      input: lexemes,
      ctx: context(crypto),
      expect: expectPass('unpinned'),
    },
    {
      name: 'classical: a respelled number breaks the signature',
      input: lexemes.replace('1.50', '1.5'),
      ctx: context(crypto),
      expect: outcome('classical', 'INVALID', 'unattributed', 'signature_invalid', '/signature'),
    },
    {
      name: 'classical: tampered payload disagrees with raw_payload',
      input: modified((doc) => ((doc['signed_payload'] as JsonObject)['amount'] = '99.00')),
      ctx: context(crypto),
      expect: outcome('classical', 'MISMATCH', 'unattributed', 'raw_payload_mismatch', '/raw_payload'),
    },
    {
      name: 'classical: top-level sequence disagrees',
      input: modified((doc) => (doc['sequence'] = 8)),
      ctx: context(crypto),
      expect: outcome('classical', 'MISMATCH', 'unattributed', 'sequence_mismatch', '/sequence'),
    },
    {
      name: 'classical: forged signature',
      input: modified((doc) => (doc['signature'] = otherSignature['signature'] ?? null)),
      ctx: context(crypto),
      expect: outcome('classical', 'INVALID', 'unattributed', 'signature_invalid', '/signature'),
    },
    {
      name: 'classical: tampered payload naming a pinned key is unattributed, never trusted',
      input: modified((doc) => ((doc['signed_payload'] as JsonObject)['amount'] = '99.00')),
      ctx: context(crypto, { pinned: [pinned] }),
      expect: {
        ...outcome('classical', 'MISMATCH', 'unattributed', 'raw_payload_mismatch', '/raw_payload'),
        claimedKeyId: pinned.key_id,
      },
    },
    {
      name: 'classical: forged signature under a pinned key is unattributed, never trusted',
      input: modified((doc) => (doc['signature'] = otherSignature['signature'] ?? null)),
      ctx: context(crypto, { pinned: [pinned] }),
      expect: {
        ...outcome('classical', 'INVALID', 'unattributed', 'signature_invalid', '/signature'),
        claimedKeyId: pinned.key_id,
      },
    },
    {
      name: 'classical: duplicate member name',
      input: valid.replace('"signed_payload":{', '"signed_payload":{"amount":"1.00",'),
      ctx: context(crypto),
      expect: outcome('unknown', 'MALFORMED', 'not_applicable', 'duplicate_name', '/signed_payload/amount'),
    },
    {
      name: 'classical: unsupported alg',
      input: modified((doc) => (doc['alg'] = 'ES256')),
      ctx: context(crypto),
      expect: outcome('classical', 'UNSUPPORTED', 'not_applicable', 'unsupported_algorithm', '/alg'),
    },
    {
      name: 'classical: missing public key',
      input: modified((doc) => delete doc['public_key_hex']),
      ctx: context(crypto),
      expect: outcome('classical', 'MALFORMED', 'not_applicable', 'missing_property', '/public_key_hex'),
    },
    {
      name: 'classical: empty public key',
      input: modified((doc) => (doc['public_key_hex'] = '')),
      ctx: context(crypto),
      expect: outcome('classical', 'MALFORMED', 'not_applicable', 'invalid_public_key', '/public_key_hex'),
    },
    {
      name: 'classical: an unsigned extra member',
      input: modified((doc) => (doc['note'] = 'approved')),
      ctx: context(crypto),
      expect: outcome('classical', 'MALFORMED', 'not_applicable', 'unknown_property', '/note'),
    },
  ];
}

function countersignerCases(crypto: CryptoProvider): ConformanceCase[] {
  const seed = testSeed(3);
  const log: CountersignedEntry[] = [];
  for (const n of [1, 2, 3, 4, 5]) {
    log.push(
      countersign(
        { record: fromPlain({ receipt: `r-${n}`, sha256: '00' }), operator_signature: `operator signature ${n}` },
        seed,
        crypto,
        { time: 1_780_000_000.25 + n, previousLeaves: log.map((entry) => entry.leaf) },
      ),
    );
  }
  const valid = inclusionAnswer(log, 3, crypto);
  const third = log[2];
  if (third === undefined) throw new Error('the countersigner log is short');
  const pinned = pinnedBySeed(crypto, 'did:svc:test:countersigner', seed);
  const other = countersign({ record: fromPlain({}), operator_signature: 'x' }, testSeed(4), crypto, { time: 1 });
  const changed = (from: string, to: string): string => {
    const text = valid.replace(from, to);
    if (text === valid) throw new Error(`conformance edit found nothing to replace: ${from}`);
    return text;
  };
  const expect = (status: ReportStatus, trust: TrustStatus, code?: string, path?: string): ConformanceExpectation =>
    outcome('countersigner', status, trust, code, path);
  return [
    {
      name: 'countersigner: valid, key unpinned',
      input: valid,
      ctx: context(crypto),
      expect: expect('PASS', 'unpinned'),
    },
    {
      name: 'countersigner: valid, key pinned',
      input: valid,
      ctx: context(crypto, { pinned: [pinned] }),
      expect: expect('PASS', 'trusted'),
    },
    {
      name: 'countersigner: valid, pinned key revoked',
      input: valid,
      ctx: context(crypto, { pinned: [{ ...pinned, status: 'revoked' }] }),
      expect: expect('PASS', 'revoked'),
    },
    {
      name: 'countersigner: valid countersign answer of the first entry',
      input: log[0]?.answer ?? '',
      ctx: context(crypto),
      expect: expect('PASS', 'unpinned'),
    },
    {
      name: 'countersigner: signed_over edited, canonical text as signed',
      input: changed('"operator_signature_scheme":"unstated"', '"operator_signature_scheme":"ml-dsa-65"'),
      ctx: context(crypto),
      expect: expect('MISMATCH', 'unattributed', 'canonical_mismatch', '/signed_over_canonical'),
    },
    {
      name: 'countersigner: leaf does not recompute',
      input: changed(`"leaf":"${third.leaf}"`, `"leaf":"${'0'.repeat(64)}"`),
      ctx: context(crypto),
      expect: expect('MISMATCH', 'unattributed', 'leaf_mismatch', '/signed_over/leaf'),
    },
    {
      name: 'countersigner: forged countersignature',
      input: changed(third.countersignature, other.countersignature),
      ctx: context(crypto),
      expect: expect('INVALID', 'unattributed', 'signature_invalid', '/countersignature'),
    },
    {
      name: 'countersigner: root does not match the fold',
      input: changed(`"root":"${(JSON.parse(valid) as { root: string }).root}"`, `"root":"${'0'.repeat(64)}"`),
      ctx: context(crypto),
      expect: expect('MISMATCH', 'unattributed', 'merkle_root_mismatch', '/root'),
    },
    {
      name: 'countersigner: audit path side flipped',
      input: changed('[["right",', '[["left",'),
      ctx: context(crypto),
      expect: expect('MISMATCH', 'unattributed', 'merkle_root_mismatch', '/root'),
    },
    {
      name: 'countersigner: duplicate member name',
      input: changed('"root":', '"seq":3,"root":'),
      ctx: context(crypto),
      expect: outcome('unknown', 'MALFORMED', 'not_applicable', 'duplicate_name', '/seq'),
    },
    {
      name: 'countersigner: missing public key',
      input: changed(`"countersigner_public_key_b64":"${third.publicKey}",`, ''),
      ctx: context(crypto),
      expect: expect('MALFORMED', 'not_applicable', 'missing_property', '/countersigner_public_key_b64'),
    },
  ];
}

function sealedCases(crypto: CryptoProvider): ConformanceCase[] {
  const secret: SecretEntry = { key_id: 'tenant-1/2026', key: testSeed(5) };
  const wrong: SecretEntry = { key_id: 'tenant-1/2026', key: testSeed(6) };
  const iv = Uint8Array.from({ length: 12 }, (_, index) => index);
  const classicalSeed = testSeed(1);
  const inner = signClassical({ sequence: 1, amount: '5.00' }, classicalSeed, crypto);
  const tamperedInner = inner.replace('"amount":"5.00","sequence":1}', '"amount":"6.00","sequence":1}');
  const seal = (text: string, options: { aad?: Uint8Array } = {}): string =>
    JSON.stringify(sealDocument(text, secret, crypto, { iv, ...options }));
  const valid = seal(inner);
  const pinned = pinnedBySeed(crypto, 'did:svc:test:classical', classicalSeed);
  const withSecret = (options: Partial<Omit<VerifyContext, 'crypto'>> = {}): VerifyContext =>
    context(crypto, { secrets: [secret], ...options });
  const modified = (change: (doc: JsonObject) => void): string => {
    const copy = JSON.parse(valid) as JsonObject;
    change(copy);
    return JSON.stringify(copy);
  };
  let nested = inner;
  for (let layer = 0; layer < 5; layer++) nested = seal(nested);
  let allowed = inner;
  for (let layer = 0; layer < 4; layer++) allowed = seal(allowed);
  const sealedExpect = (
    status: ReportStatus,
    trust: TrustStatus,
    error?: { code: string; path?: string },
    innerStatus?: ReportStatus,
  ): ConformanceExpectation => outcome('sealed', status, trust, error?.code, error?.path, innerStatus);
  return [
    {
      name: 'sealed: valid, inner key unpinned',
      input: valid,
      ctx: withSecret(),
      expect: sealedExpect('PASS', 'unpinned', undefined, 'PASS'),
    },
    {
      name: 'sealed: valid, inner key pinned',
      input: valid,
      ctx: withSecret({ pinned: [pinned] }),
      expect: sealedExpect('PASS', 'trusted', undefined, 'PASS'),
    },
    {
      name: 'sealed: with aad',
      input: seal(inner, { aad: Uint8Array.of(1, 2, 3) }),
      ctx: withSecret(),
      expect: sealedExpect('PASS', 'unpinned', undefined, 'PASS'),
    },
    {
      name: 'sealed: wrong key',
      input: valid,
      ctx: context(crypto, { secrets: [wrong] }),
      expect: sealedExpect('AUTH_FAILED', 'not_applicable', { code: 'authentication_failed', path: '/tag' }),
    },
    {
      name: 'sealed: tampered ciphertext',
      input: modified((doc) => {
        const text = doc['ciphertext'] as string;
        doc['ciphertext'] = (text.startsWith('A') ? 'B' : 'A') + text.slice(1);
      }),
      ctx: withSecret(),
      expect: sealedExpect('AUTH_FAILED', 'not_applicable', { code: 'authentication_failed' }),
    },
    {
      name: 'sealed: tampered aad',
      input: modified((doc) => (doc['aad'] = b64uEncode(Uint8Array.of(9)))),
      ctx: withSecret(),
      expect: sealedExpect('AUTH_FAILED', 'not_applicable', { code: 'authentication_failed' }),
    },
    {
      name: 'sealed: no secret',
      input: valid,
      ctx: context(crypto),
      expect: sealedExpect('INDETERMINATE', 'not_applicable', { code: 'secret_unavailable', path: '/key_id' }),
    },
    {
      name: 'sealed: tampered inner document',
      input: seal(tamperedInner),
      ctx: withSecret(),
      expect: sealedExpect('MISMATCH', 'unattributed', undefined, 'MISMATCH'),
    },
    {
      name: 'sealed: unsupported enc',
      input: modified((doc) => (doc['enc'] = 'A128GCM')),
      ctx: withSecret(),
      expect: sealedExpect('UNSUPPORTED', 'not_applicable', { code: 'unsupported_encryption', path: '/enc' }),
    },
    {
      name: 'sealed: plaintext is not JSON',
      input: seal('not json'),
      ctx: withSecret(),
      expect: sealedExpect('MALFORMED', 'not_applicable', undefined, 'MALFORMED'),
    },
    {
      name: 'sealed: plaintext with a duplicate member',
      input: seal(inner.replace('"signed_payload":{', '"signed_payload":{"sequence":2,')),
      ctx: withSecret(),
      expect: sealedExpect('MALFORMED', 'not_applicable', undefined, 'MALFORMED'),
    },
    {
      name: 'sealed: four layers deep',
      input: allowed,
      ctx: withSecret(),
      expect: sealedExpect('PASS', 'unpinned', undefined, 'PASS'),
    },
    {
      name: 'sealed: five layers deep',
      input: nested,
      ctx: withSecret(),
      expect: sealedExpect('MALFORMED', 'not_applicable', undefined, 'MALFORMED'),
    },
    {
      name: 'sealed: iv of the wrong length',
      input: modified((doc) => (doc['iv'] = b64uEncode(new Uint8Array(16)))),
      ctx: withSecret(),
      expect: sealedExpect('MALFORMED', 'not_applicable', { code: 'invalid_encoding', path: '/iv' }),
    },
  ];
}

function envelopeCases(crypto: CryptoProvider): ConformanceCase[] {
  const seeds = { requester: testSeed(7), operator: testSeed(8), service: testSeed(9) };
  const requesterDid = didKeyFromEd25519(crypto.ed25519PublicKey(seeds.requester));
  const signers = {
    requester: { key_id: requesterDid, seed: seeds.requester },
    operator: { key_id: 'did:web:operator.example.com', seed: seeds.operator },
    service: { key_id: 'did:svc:evroom:k1', seed: seeds.service },
  };
  const fields: JsonObject = {
    v: 'svc-receipt-v1',
    receipt_id: 'rcp_01JD0000000000000000000000',
    request: { hash: 'sha256:00', origin: 'eu', purpose: 'audit', policy_hash: 'sha256:11' },
    operator: { entity: 'Operator Ltd', region: 'eu-west', training_region: 'none' },
    response: { hash: 'sha256:22', sealed: false },
    issued_at: '2026-05-31T12:00:00.000Z',
  };
  const valid = JSON.stringify(signEnvelope(fields, signers, crypto));
  const operatorKey = ed25519KeyEntry(crypto, signers.operator.key_id, seeds.operator);
  const servicePinned = pinnedBySeed(crypto, signers.service.key_id, seeds.service);
  const keys = { advertised: [operatorKey, ed25519KeyEntry(crypto, signers.service.key_id, seeds.service)] };
  const modified = (change: (doc: JsonObject) => void): string => {
    const copy = JSON.parse(valid) as JsonObject;
    change(copy);
    return JSON.stringify(copy);
  };
  const expect = (status: ReportStatus, trust: TrustStatus, code?: string, path?: string): ConformanceExpectation =>
    outcome('envelope/svc-receipt-v1', status, trust, code, path);
  const forged = signEnvelope(fields, { service: { key_id: signers.service.key_id, seed: testSeed(10) } }, crypto);
  return [
    {
      name: 'envelope: valid, keys advertised',
      input: valid,
      ctx: context(crypto, keys),
      expect: expect('PASS', 'unpinned'),
    },
    {
      name: 'envelope: valid, service key pinned',
      input: valid,
      ctx: context(crypto, { ...keys, pinned: [servicePinned] }),
      expect: expect('PASS', 'trusted'),
    },
    {
      name: 'envelope: valid, service key revoked',
      input: valid,
      ctx: context(crypto, { ...keys, pinned: [{ ...servicePinned, status: 'revoked' }] }),
      expect: expect('PASS', 'revoked'),
    },
    {
      name: 'envelope: valid, service key expired',
      input: valid,
      ctx: context(crypto, {
        ...keys,
        pinned: [{ ...servicePinned, not_before: '2025-01-01T00:00:00Z', not_after: '2025-12-31T23:59:59Z' }],
      }),
      expect: expect('PASS', 'expired'),
    },
    {
      name: 'envelope: service key unknown',
      input: valid,
      ctx: context(crypto, { advertised: [operatorKey] }),
      expect: expect('INDETERMINATE', 'unpinned', 'key_unavailable', '/signatures/service/key_id'),
    },
    {
      name: 'envelope: operator role missing',
      input: modified((doc) => delete (doc['signatures'] as JsonObject)['operator']),
      ctx: context(crypto, keys),
      expect: expect('INDETERMINATE', 'unpinned', 'signature_missing', '/signatures/operator'),
    },
    {
      name: 'envelope: tampered field',
      input: modified((doc) => ((doc['response'] as JsonObject)['sealed'] = true)),
      ctx: context(crypto, keys),
      expect: expect('MISMATCH', 'unattributed', 'content_mismatch', ''),
    },
    {
      name: 'envelope: forged service signature',
      input: modified(
        (doc) =>
          ((doc['signatures'] as JsonObject)['service'] = (forged['signatures'] as JsonObject)['service'] ?? null),
      ),
      ctx: context(crypto, keys),
      expect: expect('INVALID', 'unattributed', 'signature_invalid', '/signatures/service/sig_b64u'),
    },
    {
      name: 'envelope: key registered with another algorithm',
      input: valid,
      ctx: context(crypto, {
        advertised: [
          operatorKey,
          { key_id: signers.service.key_id, algorithm: 'ML-DSA-65', public_key: new Uint8Array(1952) },
        ],
      }),
      expect: expect('INVALID', 'unattributed', 'key_algorithm_mismatch', '/signatures/service/key_id'),
    },
    {
      name: 'envelope: duplicate member name',
      input: valid.replace('"v":"svc-receipt-v1"', '"v":"svc-receipt-v1","issued_at":"2026-01-01T00:00:00Z"'),
      ctx: context(crypto, keys),
      expect: outcome('unknown', 'MALFORMED', 'not_applicable', 'duplicate_name', '/issued_at'),
    },
    {
      name: 'envelope: unknown role',
      input: modified((doc) => ((doc['signatures'] as JsonObject)['auditor'] = { key_id: 'did:svc:x', sig_b64u: '' })),
      ctx: context(crypto, keys),
      expect: expect('MALFORMED', 'not_applicable', 'unknown_property', '/signatures/auditor'),
    },
  ];
}

function genericCases(crypto: CryptoProvider): ConformanceCase[] {
  const unknown = outcome('unknown', 'MALFORMED', 'not_applicable', 'unknown_format', '');
  return [
    { name: 'any: an object of no known format', input: '{"hello":"world"}', ctx: context(crypto), expect: unknown },
    { name: 'any: a bare number', input: '42', ctx: context(crypto), expect: unknown },
    {
      name: 'any: a byte order mark',
      input: '\uFEFF{}',
      ctx: context(crypto),
      expect: outcome('unknown', 'MALFORMED', 'not_applicable', 'bom'),
    },
    {
      name: 'any: a trailing comma',
      input: '{"v":"svc-receipt-v1",}',
      ctx: context(crypto),
      expect: outcome('unknown', 'MALFORMED', 'not_applicable', 'trailing_comma'),
    },
  ];
}
