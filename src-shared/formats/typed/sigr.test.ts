import { describe, expect, it } from 'vitest';
import { b64uEncode, createPortableProvider, hexEncode, utf8Encode } from '../../crypto';
import { jcs } from '../../json';
import { createVerifyContext } from '../../verify/context';
import type { JsonObject } from '../../verify/fields';
import { ed25519KeyEntry } from '../../verify/keys';
import { ReportBuilder } from '../../verify/report-builder';
import { readTypedContract } from './schema';
import { buildSigrChain, signTypedContract } from './sign';
import {
  MAX_SIGR_LINKS,
  SIGR_GENESIS_PREV,
  checkSigrLinks,
  sigrLinkCheckIds,
  sigrLinkMessage,
  sigrLinkSha256,
} from './sigr';

const crypto = createPortableProvider();
const signer = { key_id: 'did:svc:evroom:s0', seed: new Uint8Array(32).fill(6) };
const ctx = createVerifyContext(crypto, {
  now: new Date('2026-06-01T00:00:00Z'),
  advertised: [ed25519KeyEntry(crypto, signer.key_id, signer.seed)],
});
const link: JsonObject = {
  signer_key_id: signer.key_id,
  prev_sha256: SIGR_GENESIS_PREV,
  statement_sha256: 'ab'.repeat(32),
};

function runLinks(links: JsonObject[]) {
  const contract = signTypedContract(
    {
      contract_type: 'sigr.chain',
      contract_id: 'chain-1',
      issued_at: '2026-03-01T00:00:00Z',
      issuer: 'did:web:acme.example',
      body: { links },
    },
    signer.seed,
    signer.key_id,
    crypto,
  );
  const reading = readTypedContract(contract);
  if (!reading.ok) throw new Error('fixture is malformed');
  const builder = new ReportBuilder('typed/sigr.chain', sigrLinkCheckIds(links.length));
  checkSigrLinks(builder, reading.contract, ctx);
  return builder.build();
}

describe('sigr links', () => {
  it('a link signs the 32 raw bytes of SHA-256(JCS(link without sig_b64u))', () => {
    const expected = crypto.sha256(utf8Encode(jcs(link)));
    expect(sigrLinkMessage(link, crypto)).toEqual(expected);
    expect(sigrLinkMessage({ ...link, sig_b64u: 'x' }, crypto)).toEqual(expected);
    const [signed] = buildSigrChain(['ab'.repeat(32)], [signer], crypto);
    expect(signed!['sig_b64u']).toBe(b64uEncode(crypto.ed25519Sign(expected, signer.seed)));
  });

  it('the next prev_sha256 is SHA-256 of JCS of the whole link', () => {
    const signed = { ...link, sig_b64u: 'A'.repeat(86) };
    expect(sigrLinkSha256(signed, crypto)).toBe(hexEncode(crypto.sha256(utf8Encode(jcs(signed)))));
    expect(SIGR_GENESIS_PREV).toBe('0'.repeat(64));
  });

  it('plans two checks per link, at most 256 links', () => {
    expect(sigrLinkCheckIds(2)).toEqual(['link[0].prev', 'link[0].signature', 'link[1].prev', 'link[1].signature']);
    expect(sigrLinkCheckIds(10_000)).toHaveLength(2 * MAX_SIGR_LINKS);
    expect(sigrLinkCheckIds(-1)).toEqual([]);
    expect(sigrLinkCheckIds(Number.NaN)).toEqual([]);
  });

  it('a link signed over the JCS text instead of its digest is INVALID', () => {
    const text = { ...link, sig_b64u: b64uEncode(crypto.ed25519Sign(utf8Encode(jcs(link)), signer.seed)) };
    const report = runLinks([text]);
    expect(report.status).toBe('INVALID');
    expect(report.checks.map((check) => [check.id, check.status])).toEqual([
      ['link[0].prev', 'pass'],
      ['link[0].signature', 'fail'],
    ]);
  });

  it('a valid single link passes both checks', () => {
    const report = runLinks(buildSigrChain(['ab'.repeat(32)], [signer], crypto));
    expect(report.status).toBe('PASS');
    expect(report.checks.every((check) => check.status === 'pass')).toBe(true);
  });

  it('refuses non-objects', () => {
    expect(() => sigrLinkMessage([] as unknown as JsonObject, crypto)).toThrow(TypeError);
    expect(() => sigrLinkSha256(null as unknown as JsonObject, crypto)).toThrow(TypeError);
  });
});
