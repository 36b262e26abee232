import { describe, expect, it } from 'vitest';
import { createPortableProvider, utf8Encode } from '../crypto';
import { signEnvelope } from '../formats/envelope';
import { jcs } from '../json';
import { createVerifyContext } from './context';
import { verifyDocumentFacts } from './receipt-facts';

const crypto = createPortableProvider();
const seed = new Uint8Array(32).fill(91);
const context = createVerifyContext(crypto, { pinned: [], advertised: [], secrets: [] });

describe('verifyDocumentFacts', () => {
  it('gives the report, the canonical text and the document id of one strict parse', () => {
    const document = signEnvelope(
      { v: 'svc-receipt-v1', receipt_id: 'rcp_facts', issued_at: '2026-11-01T12:00:00Z', sequence: 1 },
      { service: { key_id: 'did:svc:acme:k1', seed } },
      crypto,
    );
    const verified = verifyDocumentFacts(utf8Encode(`${JSON.stringify(document, null, 2)}\n`), context);
    expect(verified.canonical).toBe(jcs(document));
    expect(verified).toMatchObject({ receipt_id: 'rcp_facts', issuer_key_id: 'did:svc:acme:k1' });
    expect(verified.issued_at).toBe(Date.parse('2026-11-01T12:00:00Z'));
    expect(verified.report.format).toBe('envelope/svc-receipt-v1');
  });

  it('reports bytes that are not strict JSON as MALFORMED, with no canonical text', () => {
    const verified = verifyDocumentFacts(utf8Encode('{"a": 1, "a": 2}'), context);
    expect(verified.canonical).toBeUndefined();
    expect(verified.report.status).toBe('MALFORMED');
    expect(verified.receipt_id).toBeNull();
    expect(() => verifyDocumentFacts('text' as never, context)).toThrow(TypeError);
  });
});
