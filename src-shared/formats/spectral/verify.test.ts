import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { b64Decode, createPortableProvider } from '../../crypto';
import { fromPlain, parseJsonTree } from '../../json';
import { createVerifyContext } from '../../verify/context';
import { detectFormat } from '../../verify/detect';
import { signedContent } from '../../verify/signed-content';
import { verifyDocument } from '../../verify/verify';
import { spectralFacts } from './facts';
import { signSpectral } from './sign';

const crypto = createPortableProvider();
const NOW = new Date('2026-11-25T20:00:00.000Z');

function corpus(file: string): string {
  return readFileSync(fileURLToPath(new URL(`../../../test-vectors/spectral/${file}`, import.meta.url)), 'utf8');
}

function verify(text: string, pinned: Parameters<typeof createVerifyContext>[1] = {}) {
  return verifyDocument(text, createVerifyContext(crypto, { now: NOW, ...pinned }));
}

describe('Spectral receipts', () => {
  it('is trusted when a pinned entry holds the embedded key’s bytes, unpinned otherwise', () => {
    const text = corpus('ed25519-canonical-valid.json');
    const spki = b64Decode((JSON.parse(text) as { public_key: string }).public_key);
    const pinned = [{ key_id: 'did:hive:spectral', algorithm: 'Ed25519' as const, public_key: spki.slice(12) }];
    expect(verify(text, { pinned }).trust).toMatchObject({ status: 'trusted', key_id: 'did:hive:spectral' });
    expect(verify(text).trust.status).toBe('unpinned');
  });

  it('shows the payload bytes as signed content: their SHA-256 is signed_payload_sha256', () => {
    for (const file of ['ed25519-valid.json', 'ed25519-canonical-valid.json', 'ed25519-relay-respelled.json']) {
      const text = corpus(file);
      const [content] = signedContent('spectral', new TextEncoder().encode(text), crypto);
      expect(content?.sha256, file).toBe((JSON.parse(text) as { signed_payload_sha256: string }).signed_payload_sha256);
    }
  });

  it('never passes a document whose member is not covered, even with a valid signature', () => {
    const report = verify(corpus('ed25519-canonical-proto-unsigned.json'));
    expect(report.status).toBe('INDETERMINATE');
    expect(report.checks.filter((check) => check.status !== 'pass').map((check) => check.id)).toEqual(['coverage']);
    expect(report.errors).toEqual([expect.objectContaining({ code: 'unsigned_member', path: '/__proto__' })]);
  });

  it('refuses keys that are not an Ed25519 SPKI and digests that are not lowercase hex', () => {
    const signed = signSpectral({ id: 'r-1', n: 1 }, new Uint8Array(32).fill(9), crypto, 'ed25519-canonical');
    expect(verify(JSON.stringify(signed)).status).toBe('PASS');
    const upper = { ...signed, signed_payload_sha256: String(signed['signed_payload_sha256']).toUpperCase() };
    expect(verify(JSON.stringify(upper)).errors.map((error) => error.code)).toEqual(['invalid_digest']);
    const x25519 = `MCowBQYDK2VuAyEA${String(signed['public_key']).slice(16)}`;
    expect(verify(JSON.stringify({ ...signed, public_key: x25519 })).errors.map((error) => error.code)).toEqual([
      'invalid_public_key',
    ]);
  });

  it('is recognized by signature_algo beside its three signature members, never by one member', () => {
    const members = { signature: 'x', public_key: 'y', signed_payload_sha256: 'z' };
    expect(detectFormat(fromPlain({ ...members, signature_algo: 'hmac' }))).toBe('spectral');
    expect(detectFormat(fromPlain({ signature_algo: 'ed25519' }))).toBe('unknown');
    expect(detectFormat(fromPlain({ ...members, signature_algo: 1 }))).toBe('unknown');
    expect(detectFormat(fromPlain({ signed_payload: {}, signature: 'x', signature_algo: 'ed25519' }))).toBe(
      'classical',
    );
  });

  it('gives the ledger its id, instant and issuer key', () => {
    const facts = spectralFacts(parseJsonTree(corpus('ed25519-valid.json')));
    expect(facts.receipt_id).toBe('rcpt_fresh_0001');
    expect(facts.issued_at).toBe(Date.parse('2026-11-25T19:00:00.000Z'));
    expect(facts.issuer_key_id).toMatch(/^did:key:z6Mk/);
  });
});
