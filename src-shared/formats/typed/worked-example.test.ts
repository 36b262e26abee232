import { createHash, createPublicKey, verify as nodeVerify } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { b64uDecode, createPortableProvider, hexDecode } from '../../crypto';
import { createVerifyContext } from '../../verify/context';
import { verifyDocument } from '../../verify/verify';
import { WORKED_EXAMPLE_SEED_HEX, typedWorkedExample } from './worked-example';

const crypto = createPortableProvider();

// The docs print these; a change to the example, JCS or Rule D1 must show up here first.
const PAYLOAD =
  '{"algorithm":"Ed25519","body":{"delegate":"did:web:agent.example","delegator":"did:web:acme.example","not_after":"2026-12-31T23:59:59.999Z","not_before":"2026-01-01T00:00:00.000Z","scope":["receipts:issue","receipts:verify"]},"contract_id":"dlg-2026-0001","contract_type":"authority.delegation","issued_at":"2026-01-01T09:00:00.000Z","issuer":"did:web:acme.example","key_id":"did:key:z6MkgAnvkP45uNxwCKeNdt6wrYkEjpYX4f7Nrd8MQqFL8Fbn","schema":"r1.0.0"}';
const PAYLOAD_SHA256 = '39067e850fd1cc899df1bc5588bd10206bd08ee815289568523cad7ab7877712';
const SIG_B64U = '0CKpYQwxy133V6Mif2hpwjoW78RSubSNLuoiDm_yTFu_2zstXbn6fcLtfx6YBocd1NxLWGcfLfrlRYNuxwmsCA';

describe('typed worked example', () => {
  const example = typedWorkedExample(crypto);

  it('has the pinned payload P and payload_sha256', () => {
    expect(example.seed_hex).toBe(WORKED_EXAMPLE_SEED_HEX);
    expect(example.key_id).toBe('did:key:z6MkgAnvkP45uNxwCKeNdt6wrYkEjpYX4f7Nrd8MQqFL8Fbn');
    expect(example.payload).toBe(PAYLOAD);
    expect(example.payload_sha256).toBe(PAYLOAD_SHA256);
    expect(example.contract['payload_sha256']).toBe(PAYLOAD_SHA256);
    expect(example.contract['sig_b64u']).toBe(SIG_B64U);
  });

  it('agrees with node:crypto on the hash and the signature', () => {
    expect(createHash('sha256').update(PAYLOAD, 'utf8').digest('hex')).toBe(PAYLOAD_SHA256);
    const publicKey = crypto.ed25519PublicKey(hexDecode(WORKED_EXAMPLE_SEED_HEX));
    const spki = Buffer.concat([Buffer.from('302a300506032b6570032100', 'hex'), Buffer.from(publicKey)]);
    const key = createPublicKey({ key: spki, format: 'der', type: 'spki' });
    expect(nodeVerify(null, Buffer.from(PAYLOAD_SHA256, 'hex'), key, Buffer.from(b64uDecode(SIG_B64U)))).toBe(true);
  });

  it('verifies PASS offline through its did:key, trust unpinned', () => {
    const report = verifyDocument(
      JSON.stringify(example.contract),
      createVerifyContext(crypto, { now: new Date('2026-06-01T00:00:00Z') }),
    );
    expect(report.status).toBe('PASS');
    expect(report.trust.status).toBe('unpinned');
  });
});
