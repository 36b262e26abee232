import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createPortableProvider, utf8Encode } from '../../src-shared/crypto';
import { jcs, parseJson } from '../../src-shared/json';
import { signEnvelope } from '../../src-shared/formats/envelope';
import { createVerifyContext } from '../../src-shared/verify/context';
import { createNodeCryptoProvider } from './node-crypto-provider';
import { verifyReceiptBytes } from './receipt-facts';

const context = createVerifyContext(createNodeCryptoProvider());
const sha = (text: string | Uint8Array): string => createHash('sha256').update(text).digest('hex');

describe('verifyReceiptBytes', () => {
  it('identifies a document by the SHA-256 of its JCS form, whatever its spacing and member order', () => {
    const text = '{ "b": 1, "a": [true, null] }';
    const facts = verifyReceiptBytes(utf8Encode(text), context);
    expect(facts.receipt_sha256).toBe(sha(jcs(parseJson(text))));
    expect(verifyReceiptBytes(utf8Encode('{"a":[true,null],"b":1}'), context).receipt_sha256).toBe(facts.receipt_sha256);
    expect(facts.report.status).toBe('MALFORMED');
  });

  it('identifies bytes that do not parse by their own SHA-256, with a MALFORMED report', () => {
    const bytes = utf8Encode('{"a":1,"a":2}');
    const facts = verifyReceiptBytes(bytes, context);
    expect(facts).toMatchObject({ receipt_sha256: sha(bytes), receipt_id: null, issued_at: null });
    expect(facts.report.errors[0]).toMatchObject({ code: 'duplicate_name', path: '/a' });
  });

  it('reads the document id and issue time of each kind of document', () => {
    const seed = new Uint8Array(32).fill(1);
    const envelope = signEnvelope(
      { v: 'svc-receipt-v1', receipt_id: 'rcp_X', issued_at: '2026-11-01T12:00:00+01:00' },
      {},
      createPortableProvider(),
    );
    expect(verifyReceiptBytes(utf8Encode(JSON.stringify(envelope)), context)).toMatchObject({
      receipt_id: 'rcp_X',
      issued_at: Date.UTC(2026, 10, 1, 11),
    });
    expect(seed.length).toBe(32);
    const facts = (value: unknown): { receipt_id: string | null; issued_at: number | null } =>
      verifyReceiptBytes(utf8Encode(JSON.stringify(value)), context);
    expect(facts({ receipt: { id: 'rcp_A' }, issued_at: '2026-11-01T12:00:00.000Z' })).toMatchObject({
      receipt_id: 'rcp_A',
      issued_at: Date.UTC(2026, 10, 1, 12),
    });
    expect(facts({ receipt: { id: 'rcp_N' }, i: 1_790_000_000 })).toMatchObject({ receipt_id: 'rcp_N', issued_at: 1_790_000_000_000 });
    expect(facts({ receipt_id: 'r_ppr.wearable_1', ts: 1_790_000_000 })).toMatchObject({ issued_at: 1_790_000_000_000 });
    expect(facts({ contract_id: 'c-1', issued_at: 'yesterday' })).toMatchObject({ receipt_id: 'c-1', issued_at: null });
    // Ids that are not printable ASCII, and implausible instants, are not recorded.
    expect(facts({ receipt_id: 'a b', i: 5 })).toMatchObject({ receipt_id: null, issued_at: null });
  });

  it('checks its argument', () => {
    expect(() => verifyReceiptBytes('{}' as never, context)).toThrow(TypeError);
  });
});
