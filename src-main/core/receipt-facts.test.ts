import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createPortableProvider, utf8Encode } from '../../src-shared/crypto';
import { jcs, parseJson } from '../../src-shared/json';
import { signEnvelope } from '../../src-shared/formats/envelope';
import { createVerifyContext } from '../../src-shared/verify/context';
import { createNodeCryptoProvider } from './node-crypto-provider';
import { buildSamples, SAMPLES_NOW } from '../operations/samples';
import { MAX_RECEIPT_ID_LENGTH, verifyReceiptBytes } from './receipt-facts';

const context = createVerifyContext(createNodeCryptoProvider());
const samples = buildSamples();

function sample(file: string): string {
  const found = samples.files.find((candidate) => candidate.file === file);
  if (found === undefined) throw new Error(`no sample ${file}`);
  return found.text;
}

function facts(text: string): { receipt_id: string | null; issued_at: number | null; issuer_key_id: string | null } {
  const { receipt_id, issued_at, issuer_key_id } = verifyReceiptBytes(utf8Encode(text), context);
  return { receipt_id, issued_at, issuer_key_id };
}
const sha = (text: string | Uint8Array): string => createHash('sha256').update(text).digest('hex');

describe('verifyReceiptBytes', () => {
  it('identifies a document by the SHA-256 of its JCS form, whatever its spacing and member order', () => {
    const text = '{ "b": 1, "a": [true, null] }';
    const result = verifyReceiptBytes(utf8Encode(text), context);
    expect(result.receipt_sha256).toBe(sha(jcs(parseJson(text))));
    expect(verifyReceiptBytes(utf8Encode('{"a":[true,null],"b":1}'), context).receipt_sha256).toBe(
      result.receipt_sha256,
    );
    expect(result.report.status).toBe('MALFORMED');
  });

  it('identifies bytes that do not parse by their own SHA-256, with a MALFORMED report', () => {
    const bytes = utf8Encode('{"a":1,"a":2}');
    const result = verifyReceiptBytes(bytes, context);
    expect(result).toMatchObject({
      receipt_sha256: sha(bytes),
      receipt_id: null,
      issued_at: null,
      issuer_key_id: null,
    });
    expect(result.report.errors[0]).toMatchObject({ code: 'duplicate_name', path: '/a' });
  });

  it('reads the id, issue time and issuer each format says of itself', () => {
    const envelope = signEnvelope(
      { v: 'svc-receipt-v1', receipt_id: 'rcp_X', issued_at: '2026-11-01T12:00:00+01:00' },
      { service: { key_id: 'did:svc:test:service', seed: new Uint8Array(32).fill(1) } },
      createPortableProvider(),
    );
    expect(facts(JSON.stringify(envelope))).toEqual({
      receipt_id: 'rcp_X',
      issued_at: Date.UTC(2026, 10, 1, 11),
      issuer_key_id: 'did:svc:test:service',
    });
    const expected: Record<string, [string | null, number | null, string | null]> = {
      // Classical and countersigner documents have no id (docs/protocol.md, "Ledger facts"); a
      // countersigner entry's instant is its countersigner_time (entry 2 of the sample log is
      // countersigned 1.25 s after the samples' instant); their issuer is the embedded key's did:key.
      'classical/valid.json': [null, null, 'did:key:z6MktULudTtAsAhRegYPiZ6631RV3viv12qd4GQF8z1xB22S'],
      'countersigner/valid.json': [
        null,
        Date.parse(SAMPLES_NOW) + 1250,
        'did:key:z6Mkgd9vC5PoQn4fiePDTQAsha3eT6LgF6tUPzf28iwXLgde',
      ],
      // Without its secret a sealed document says nothing and verifies with no key.
      'sealed/valid.json': [null, null, null],
      'envelope/valid.json': [
        'rcp_01KT1GW6G01R70W3GE1R70W3GE',
        Date.parse(SAMPLES_NOW),
        'did:svc:evroom:samples:service',
      ],
      'wearable/valid.json': [
        'r_ppr.wearable_1773480420_58ab239dc178',
        1_773_480_420_000,
        'did:svc:evroom:wearable-example',
      ],
      'nano/valid.json': [
        'rcp_01KT1GW6G0040G2081040G2081',
        Date.parse(SAMPLES_NOW),
        'did:key:z6Mkp2fzpTkAj2sD7JjGHh1APV95HW6mJVcz6vM7bLHeSA14',
      ],
      'standard/valid.json': ['rcp_01KT1GW6G0081040G2081040G2', Date.parse(SAMPLES_NOW), 'did:svc:evroom:example-k1'],
      'legacy-pq/valid.json': ['rcp_01KT1GW6G00M2GA1850M2GA185', Date.parse(SAMPLES_NOW), 'did:svc:evroom:example-k1'],
      'typed/valid.json': [
        'dlg-2026-0001',
        Date.parse('2026-01-01T09:00:00.000Z'),
        'did:key:z6MkgAnvkP45uNxwCKeNdt6wrYkEjpYX4f7Nrd8MQqFL8Fbn',
      ],
      'typed-pq/valid.json': [
        (JSON.parse(sample('typed-pq/valid.json')) as { envelope: { payload_digest: string } }).envelope.payload_digest,
        Date.parse('2026-05-01T12:00:00.000Z'),
        null,
      ],
      // HAHS and Spectral receipts embed their key (filed under its did:key); an SMSH stamp names its kid.
      'hahs/valid.json': [
        'TGT-00000000000000a1',
        Date.parse(SAMPLES_NOW),
        'did:key:z6MkjJRuJtMxfTErK55eWeV7FQLLxpsvzSUQ3AC6DmdNPFja',
      ],
      'smsh-stamp/valid.json': [null, Date.parse(SAMPLES_NOW), 'did:svc:evroom:samples:smsh-stamp'],
      'spectral/valid.json': [
        'rcpt_sample_0001',
        Date.parse(SAMPLES_NOW),
        'did:key:z6Mkg49NtQR2LyYRDCQFK4w1VVHqhypZSSRo7HsyuN7SV7v5',
      ],
      // A SiGR chain receipt names no key (its ML-DSA-65 key is inline): filed under its run_id.
      'sigr-chain/valid.json': ['run-example-1', Date.parse(SAMPLES_NOW), null],
    };
    for (const [file, [receiptId, issuedAt, issuer]] of Object.entries(expected)) {
      expect([file, facts(sample(file))]).toEqual([
        file,
        { receipt_id: receiptId, issued_at: issuedAt, issuer_key_id: issuer },
      ]);
    }
  });

  it('files an embedded key under its did:key whatever name it is pinned under', () => {
    const text = sample('classical/valid.json');
    const key = samples.keys.find((entry) => entry.key_id === 'did:svc:evroom:samples:classical');
    expect(key).toBeDefined();
    const pinned = verifyReceiptBytes(utf8Encode(text), { ...context, pinned: key ? [key] : [] });
    expect(pinned.report.trust).toMatchObject({ status: 'trusted', key_id: 'did:svc:evroom:samples:classical' });
    expect(pinned.issuer_key_id).toBe(facts(text).issuer_key_id);
  });

  it('files a sealed document under the signer found inside it, once it opens', () => {
    const opened = verifyReceiptBytes(utf8Encode(sample('sealed/valid.json')), {
      ...context,
      secrets: samples.secrets,
    });
    expect(opened.report.status).toBe('PASS');
    expect(opened).toMatchObject({
      receipt_id: null,
      issued_at: null,
      issuer_key_id: 'did:key:z6MktULudTtAsAhRegYPiZ6631RV3viv12qd4GQF8z1xB22S',
    });
  });

  it('records nothing a document of no known format claims, and no id or instant a person could not use', () => {
    expect(facts(JSON.stringify({ receipt: { id: 'rcp_A' }, issued_at: '2026-11-01T12:00:00.000Z' }))).toEqual({
      receipt_id: null,
      issued_at: null,
      issuer_key_id: null,
    });
    expect(facts(JSON.stringify({ contract_id: 'c-1', issued_at: 'yesterday' }))).toEqual({
      receipt_id: null,
      issued_at: null,
      issuer_key_id: null,
    });
    // Recognized formats whose claims break the rules: not printable, too long, implausible.
    expect(facts(JSON.stringify({ receipt_id: 'r_ppr.wearable_1 x', ts: 5, key_id: 'did:svc:a b' }))).toEqual({
      receipt_id: null,
      issued_at: null,
      issuer_key_id: null,
    });
    expect(facts(JSON.stringify({ receipt_id: 'r_ppr.wearable_1', ts: 1_790_000_000 }))).toMatchObject({
      receipt_id: 'r_ppr.wearable_1',
      issued_at: 1_790_000_000_000,
    });
    const long = `r_ppr.wearable_${'x'.repeat(MAX_RECEIPT_ID_LENGTH)}`;
    expect(facts(JSON.stringify({ receipt_id: long }))).toMatchObject({ receipt_id: null });
    expect(facts(JSON.stringify({ profile: 'nano', receipt: { id: 'rcp_N', k: 7 }, i: 'soon' }))).toEqual({
      receipt_id: 'rcp_N',
      issued_at: null,
      issuer_key_id: null,
    });
    expect(facts(JSON.stringify({ signed_payload: [], signature: 1, public_key_hex: 'zz' }))).toEqual({
      receipt_id: null,
      issued_at: null,
      issuer_key_id: null,
    });
  });

  it('checks its argument', () => {
    expect(() => verifyReceiptBytes('{}' as never, context)).toThrow(TypeError);
  });
});
