import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { b64uDecode, createPortableProvider } from '../../crypto';
import { fromPlain, jcs, parseJsonTree } from '../../json';
import type { KeyEntry } from '../../verify/context';
import { createVerifyContext } from '../../verify/context';
import { detectFormat } from '../../verify/detect';
import type { JsonObject } from '../../verify/fields';
import { signedContent } from '../../verify/signed-content';
import { verifyDocument } from '../../verify/verify';
import { smshFacts } from './facts';

const crypto = createPortableProvider();
const NOW = new Date('2026-11-25T20:00:00.000Z');

function corpus(file: string): string {
  return readFileSync(fileURLToPath(new URL(`../../../test-vectors/smsh-stamp/${file}`, import.meta.url)), 'utf8');
}

const FIXTURE_KEY: KeyEntry = {
  key_id: 'test-key-001',
  algorithm: 'Ed25519',
  public_key: b64uDecode('k3Lz3wsDhz_8xbqr8gGpWK1xnB6r_3buce3JKmQ6_FU'),
};

function verify(text: string, keys: { pinned?: KeyEntry[]; advertised?: KeyEntry[] } = {}) {
  return verifyDocument(text, createVerifyContext(crypto, { now: NOW, ...keys }));
}

describe('SMSH-Stamp v1', () => {
  const fixture = corpus('fixture-valid_tool_call_with_council.json');

  it('verifies the producer’s fixture under its opaque kid, trusted only when pinned', () => {
    expect(verify(fixture, { advertised: [FIXTURE_KEY] })).toMatchObject({
      format: 'smsh-stamp',
      status: 'PASS',
      trust: { status: 'unpinned', key_id: 'test-key-001' },
    });
    expect(verify(fixture, { pinned: [FIXTURE_KEY] }).trust.status).toBe('trusted');
  });

  it('is INDETERMINATE without a key for its kid', () => {
    const report = verify(fixture);
    expect([report.status, report.errors[0]?.code]).toEqual(['INDETERMINATE', 'key_unavailable']);
  });

  it('signs JCS of every member but sig', () => {
    const document = JSON.parse(fixture) as JsonObject;
    delete document['sig'];
    const [content] = signedContent('smsh-stamp', new TextEncoder().encode(fixture), crypto);
    expect(content?.text).toBe(jcs(document));
  });

  it('refuses a shape the fixtures do not have', () => {
    const document = JSON.parse(fixture) as JsonObject;
    const cases: [string, JsonObject][] = [
      ['unknown_property', { ...document, extra: 1 }],
      ['invalid_key_id', { ...document, kid: 'test key' }],
      ['invalid_key_id', { ...document, kid: 'k'.repeat(257) }],
      ['invalid_value', { ...document, subject: { kind: 'dance', input_hash: 'a', output_hash: 'b' } }],
      ['invalid_value', { ...document, lineage: { parent_receipts: [], depth: -1 } }],
      ['invalid_signature_encoding', { ...document, sig: `${String(document['sig'])}==` }],
    ];
    for (const [code, value] of cases) {
      const report = verify(JSON.stringify(value), { advertised: [FIXTURE_KEY] });
      expect([code, report.status, report.errors.map((error) => error.code)]).toEqual([
        code,
        'MALFORMED',
        expect.arrayContaining([code]),
      ]);
    }
  });

  it('takes a kid of any DID method under the one key id rule (PROTOCOL 0: at most 256 characters)', () => {
    const document = JSON.parse(fixture) as JsonObject;
    const kid = `did:hive:${'k'.repeat(247)}`;
    const report = verify(JSON.stringify({ ...document, kid }), { advertised: [{ ...FIXTURE_KEY, key_id: kid }] });
    expect([report.status, report.trust.status, report.trust.claimed_key_id]).toEqual(['INVALID', 'unattributed', kid]);
    const long = verify(JSON.stringify({ ...document, kid: `did:hive:${'k'.repeat(248)}` }));
    expect([long.status, long.errors.map((error) => error.code)]).toEqual(['MALFORMED', ['invalid_key_id']]);
  });

  it('names another version or algorithm as unsupported', () => {
    const document = JSON.parse(fixture) as JsonObject;
    expect(verify(JSON.stringify({ ...document, v: 'smsh-stamp/2', extra: 1 })).status).toBe('UNSUPPORTED');
    const alg = verify(JSON.stringify({ ...document, alg: 'ES256' }));
    expect([alg.status, alg.errors[0]?.message]).toEqual(['UNSUPPORTED', 'Unsupported SMSH-Stamp algorithm "ES256".']);
  });

  it('is recognized by the value of v only', () => {
    expect(detectFormat(fromPlain({ v: 'smsh-stamp/9' }))).toBe('smsh-stamp');
    expect(detectFormat(fromPlain({ v: 'smsh-stamp/1', signed_payload: {}, signature: 'x' }))).toBe('smsh-stamp');
    expect(detectFormat(fromPlain({ v: 'svc-receipt-v1', sig: 'x', kid: 'k' }))).toBe('envelope/svc-receipt-v1');
    expect(detectFormat(fromPlain({ alg: 'ed25519', kid: 'k', sig: 'x', stamped_at: 'x' }))).toBe('unknown');
  });

  it('gives the ledger its stamping instant and kid', () => {
    expect(smshFacts(parseJsonTree(fixture))).toEqual({
      receipt_id: null,
      issued_at: Date.parse('2026-05-02T12:00:00Z'),
      issuer_key_id: 'test-key-001',
    });
  });
});
