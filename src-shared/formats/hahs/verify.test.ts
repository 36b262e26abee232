import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { b64uDecode, createPortableProvider, hexEncode } from '../../crypto';
import { fromPlain, parseJsonTree } from '../../json';
import { createVerifyContext } from '../../verify/context';
import { detectFormat } from '../../verify/detect';
import { signedContent } from '../../verify/signed-content';
import { verifyDocument } from '../../verify/verify';
import { hahsFacts } from './facts';
import { signHahs } from './sign';
import { HAHS_ANCHOR_NOTE, HAHS_ISSUER_VERIFIED_NOTE } from './verify';

const crypto = createPortableProvider();
const NOW = new Date('2026-11-25T20:00:00.000Z');

function corpus(file: string): string {
  return readFileSync(fileURLToPath(new URL(`../../../test-vectors/hahs/${file}`, import.meta.url)), 'utf8');
}

function verify(text: string, pinned: Parameters<typeof createVerifyContext>[1] = {}) {
  return verifyDocument(text, createVerifyContext(crypto, { now: NOW, ...pinned }));
}

describe('HAHS receipts', () => {
  it('shows hahs_anchor as an anchor reference it did not resolve, never as verified', () => {
    const report = verify(corpus('anchored-valid.json'));
    expect(report.status).toBe('PASS');
    const anchor = report.checks.find((check) => check.id === 'anchor');
    expect(anchor?.status).toBe('unchecked');
    expect(anchor?.detail).toContain('"base:#19284733"');
    expect(report.notes).toEqual([HAHS_ISSUER_VERIFIED_NOTE, HAHS_ANCHOR_NOTE]);
    expect(verify(corpus('free-valid.json')).notes).toEqual([]);
    expect(verify(corpus('free-valid.json')).checks.map((check) => check.id)).not.toContain('anchor');
  });

  it('is trusted when a pinned entry holds the embedded key’s bytes, unpinned otherwise', () => {
    const text = corpus('free-valid.json');
    const embedded = (JSON.parse(text) as { issuer_pubkey: string }).issuer_pubkey.slice('ed25519:'.length);
    const pinned = [
      { key_id: 'did:hive:hahs-issuer', algorithm: 'Ed25519' as const, public_key: b64uDecode(embedded) },
    ];
    expect(verify(text, { pinned }).trust).toMatchObject({ status: 'trusted', key_id: 'did:hive:hahs-issuer' });
    expect(verify(text, { advertised: pinned }).trust.status).toBe('unpinned');
  });

  it('shows the canonical body as signed content: its SHA-256 is canonical_sha256', () => {
    const text = corpus('big-units-valid.json');
    const [content] = signedContent('hahs', new TextEncoder().encode(text), crypto);
    const claimed = (JSON.parse(text) as { canonical_sha256: string }).canonical_sha256;
    expect(content?.sha256).toBe(hexEncode(b64uDecode(claimed)));
    expect(content?.text).toContain('"units":1152921504606846977');
  });

  it('names another version or scheme as unsupported', () => {
    const seed = new Uint8Array(32).fill(7);
    const signed = signHahs({ protocol: 'hahs/1', receipt_id: 'TGT-1' }, seed, crypto);
    expect(verify(JSON.stringify(signed)).status).toBe('PASS');
    const mldsa = verify(JSON.stringify({ ...signed, signature: 'mldsa65:AAAA' }));
    expect([mldsa.status, mldsa.errors[0]?.code]).toEqual(['UNSUPPORTED', 'unsupported_algorithm']);
    expect(verify(JSON.stringify({ ...signed, protocol: 'hahs/1.1' })).status).toBe('UNSUPPORTED');
    expect(verify(JSON.stringify({ ...signed, issuer_pubkey: 'ed25519:' })).status).toBe('MALFORMED');
  });

  it('is recognized by its protocol’s value, before formats recognized by member names', () => {
    expect(detectFormat(fromPlain({ protocol: 'hahs/2' }))).toBe('hahs');
    expect(detectFormat(fromPlain({ protocol: 'hahs/1', signed_payload: {}, signature: 'x' }))).toBe('hahs');
    expect(detectFormat(fromPlain({ protocol: 'hahs/1', receipt_id: 'r_ppr.wearable_1' }))).toBe('hahs');
    expect(detectFormat(fromPlain({ protocol: 1, canonical_sha256: 'x', signature: 'x' }))).toBe('unknown');
    expect(detectFormat(fromPlain({ protocol: 'hive/1', issuer_pubkey: 'x' }))).toBe('unknown');
  });

  it('gives the ledger its id, instant and issuer key', () => {
    const facts = hahsFacts(parseJsonTree(corpus('free-valid.json')));
    expect(facts.receipt_id).toBe('TGT-0123456789abcdef');
    expect(facts.issued_at).toBe(Date.parse('2026-11-25T19:00:00Z'));
    expect(facts.issuer_key_id).toMatch(/^did:key:z6Mk/);
  });
});
