import { describe, expect, it } from 'vitest';
import { b64uDecode, createPortableProvider } from '../../crypto';
import type { JsonObject } from '../../verify/fields';
import {
  DEFAULT_VERIFY_URI,
  issueLegacyReceipt,
  issueProfileReceipt,
  type NanoFields,
  type StandardFields,
} from './sign';
import { receiptIdTime } from './receipt-id';
import { NANO_BYTE_BUDGET, profileDigest } from './verify';

const crypto = createPortableProvider();
const seed = new Uint8Array(32).fill(9);
const KEY_ID = 'did:svc:test:issuer';
const NOW = new Date('2026-06-01T12:34:56.789Z');
const nano: NanoFields = {
  ok: true,
  a: 'did:web:agent.example.com',
  h: `sha256:${'0f'.repeat(32)}`,
  t: 'application/json',
};
const standard: StandardFields = {
  agent_did: 'did:web:agent.example.com',
  content: { sha256: '0f'.repeat(32), type: 'application/json' },
  smsh: { sealed: true, declaration: 'sealed with the tenant key' },
  hktn_context: { reputation_tier: 'silver' },
};

describe('issueProfileReceipt', () => {
  it('writes the members in the order of the spec tables, the signature before verify_uri', () => {
    const receipt = issueProfileReceipt('nano', nano, seed, KEY_ID, crypto, { now: NOW });
    expect(Object.keys(receipt)).toEqual(['ok', 'a', 'h', 't', 'profile', 'v', 'i', 'receipt']);
    expect(Object.keys(receipt['receipt'] as JsonObject)).toEqual(['id', 'k', 'sig_b64u', 'verify_uri']);
    const full = issueProfileReceipt('standard', standard, seed, KEY_ID, crypto, { now: NOW });
    expect(Object.keys(full)).toEqual([
      'receipt_profile',
      'receipt_schema_version',
      'agent_did',
      'content',
      'issued_at',
      'smsh',
      'hktn_context',
      'receipt',
    ]);
    expect(Object.keys(full['receipt'] as JsonObject)).toEqual(['id', 'key_id', 'sig_b64u', 'verify_uri']);
  });

  it('takes the instant for i (whole seconds), issued_at (milliseconds) and the id ULID time', () => {
    const receipt = issueProfileReceipt('nano', nano, seed, KEY_ID, crypto, { now: NOW });
    expect(receipt['i']).toBe(Math.floor(NOW.getTime() / 1000));
    const block = receipt['receipt'] as JsonObject;
    expect(receiptIdTime(block['id'] as string)).toBe(NOW.getTime());
    expect(block['verify_uri']).toBe(DEFAULT_VERIFY_URI);
    const full = issueProfileReceipt('standard', standard, seed, KEY_ID, crypto, { now: NOW });
    expect(full['issued_at']).toBe('2026-06-01T12:34:56.789Z');
  });

  it('signs SHA-256(JCS(receipt without sig_b64u)) with Ed25519, deterministically for a fixed id', () => {
    const options = { now: NOW, id: 'rcp_01KT1GW6G0040G2081040G2081' };
    const first = issueProfileReceipt('standard', standard, seed, KEY_ID, crypto, options);
    expect(issueProfileReceipt('standard', standard, seed, KEY_ID, crypto, options)).toEqual(first);
    const signature = b64uDecode((first['receipt'] as JsonObject)['sig_b64u'] as string);
    expect(crypto.ed25519Verify(signature, profileDigest(first, crypto.sha256), crypto.ed25519PublicKey(seed))).toBe(
      true,
    );
    // Fresh ids differ when none is given.
    const a = issueProfileReceipt('nano', nano, seed, KEY_ID, crypto, { now: NOW });
    const b = issueProfileReceipt('nano', nano, seed, KEY_ID, crypto, { now: NOW });
    expect((a['receipt'] as JsonObject)['id']).not.toBe((b['receipt'] as JsonObject)['id']);
  });

  it('uses the current time when no instant is given', () => {
    const before = Math.floor(Date.now() / 1000);
    const receipt = issueProfileReceipt('nano', nano, seed, KEY_ID, crypto);
    expect(receipt['i']).toBeGreaterThanOrEqual(before);
    expect(receipt['i']).toBeLessThanOrEqual(Math.floor(Date.now() / 1000));
  });

  it('refuses what would not verify: bad fields name their path, over budget is RangeError', () => {
    expect(() => issueProfileReceipt('nano', { ...nano, h: 'abc' }, seed, KEY_ID, crypto, { now: NOW })).toThrow(
      /\/h does not match/,
    );
    // Every field within its schema limit, the whole over the 600-byte nano budget.
    const verifyUri = `/v1/receipt/verify?${'q'.repeat(NANO_BYTE_BUDGET / 2)}`;
    expect(() => issueProfileReceipt('nano', nano, seed, KEY_ID, crypto, { now: NOW, verifyUri })).toThrow(RangeError);
    expect(() =>
      issueProfileReceipt(
        'standard',
        { ...standard, smsh: undefined } as unknown as StandardFields,
        seed,
        KEY_ID,
        crypto,
      ),
    ).toThrow(/\/smsh must be object/);
  });

  it('refuses bad arguments with TypeError or RangeError', () => {
    expect(() => issueProfileReceipt('gold' as 'nano', nano, seed, KEY_ID, crypto)).toThrow(TypeError);
    expect(() => issueProfileReceipt('nano', null as unknown as NanoFields, seed, KEY_ID, crypto)).toThrow(TypeError);
    expect(() => issueProfileReceipt('nano', nano, seed, 'key 1', crypto)).toThrow(TypeError);
    expect(() => issueProfileReceipt('nano', nano, new Uint8Array(31), KEY_ID, crypto)).toThrow(RangeError);
    expect(() => issueProfileReceipt('nano', nano, seed, KEY_ID, crypto, { now: new Date(Number.NaN) })).toThrow(
      TypeError,
    );
    expect(() => issueProfileReceipt('nano', nano, seed, KEY_ID, crypto, { id: 'rcp_1' })).toThrow(TypeError);
    expect(() =>
      issueProfileReceipt('standard', standard, seed, KEY_ID, crypto, { now: new Date('+010000-01-01T00:00:00Z') }),
    ).toThrow(TypeError);
  });
});

describe('issueLegacyReceipt', () => {
  it('writes proof_tier in place of receipt_profile, receipt_schema_version only on request', () => {
    const plain = issueLegacyReceipt('standard', standard, seed, KEY_ID, crypto, { now: NOW });
    expect(Object.keys(plain).slice(0, 2)).toEqual(['proof_tier', 'agent_did']);
    expect(plain['proof_tier']).toBe('standard');
    expect(plain).not.toHaveProperty('receipt_profile');
    const versioned = issueLegacyReceipt('standard', standard, seed, KEY_ID, crypto, { now: NOW, schemaVersion: true });
    expect(Object.keys(versioned).slice(0, 2)).toEqual(['proof_tier', 'receipt_schema_version']);
    expect(() => issueLegacyReceipt('nano' as 'pq', standard as never, seed, KEY_ID, crypto)).toThrow(TypeError);
  });
});
