import { describe, expect, it } from 'vitest';
import { b64uDecode, createPortableProvider, hexEncode, utf8Encode } from '../../crypto';
import { createVerifyContext } from '../../verify/context';
import type { JsonObject } from '../../verify/fields';
import { verifyDocument } from '../../verify/verify';
import { PROFILE_EXAMPLE_NOW, profileWorkedExamples } from './examples';

const crypto = createPortableProvider();
const examples = profileWorkedExamples(crypto);

describe('profile worked examples', () => {
  it('pin the signed SHA-256 and the signature of each example (documented in docs/)', () => {
    expect(examples.map((example) => [example.profile, example.signedSha256])).toEqual([
      ['nano', '8e99214f9aa308f1f18754a10554410dec68eda8b2221f90f7220749cd3dae77'],
      ['standard', 'b126d164a9662740ba4712499cac6d773e30d481afbbb142ceaeff3bd4b99c02'],
      ['pq', 'f91bda806444503208c026c22832aa938358fa4d0440d5410a4c0b71693e6c79'],
    ]);
    // Ed25519 is deterministic, so the signatures are fixed too.
    expect(examples.map((example) => (example.document['receipt'] as JsonObject)['sig_b64u'])).toEqual([
      'FFJF6-N7eHa5pgpFEscHuu5Ra6UkfrI-yAcKByjcnSPKAWihBCuAZh-t85QMNYCL4T-jf0miA54bPr7NXW4qCg',
      'bGMso-k7dXYK0t0oSH7uHrazmH2WEGakhhXBIPWt6umTRDX-6KC3_47St1XKE17O6asIVwgbPtFapKZrqIA2Aw',
      'eAOs6j-TZgsN8DG9iGqjGBRQmWE-E89yrWXK1Wvt6dW76oUBxeXgQyPMcEsIBFUpink08A_90JPcDY1dF1w0Bw',
    ]);
  });

  it('the nano example is exactly this text', () => {
    expect(examples[0]?.signedText).toBe(
      '{"a":"did:web:agent.example.com","h":"sha256:bb4bba1349cb662dca1990b88b38e1cf52aa5f3ab764fe08797bf3df34d54c85",' +
        '"i":1780315200,"ok":true,"profile":"nano","receipt":{"id":"rcp_01KT1GW6G0040G2081040G2081",' +
        '"k":"did:key:z6Mkp2fzpTkAj2sD7JjGHh1APV95HW6mJVcz6vM7bLHeSA14","verify_uri":"/v1/receipt/verify"},' +
        '"t":"text/plain","v":"r1.0.0"}',
    );
  });

  it('each signedSha256 is SHA-256 of its signedText, and each signature verifies over it', () => {
    for (const example of examples) {
      const digest = crypto.sha256(utf8Encode(example.signedText));
      expect(hexEncode(digest)).toBe(example.signedSha256);
      const signature = b64uDecode((example.document['receipt'] as JsonObject)['sig_b64u'] as string);
      expect(crypto.ed25519Verify(signature, digest, b64uDecode(example.key.public_key))).toBe(true);
    }
  });

  it('verify PASS: nano offline by its did:key (unpinned), standard and pq trusted once their key is pinned', () => {
    const pinned = examples.map((example) => ({
      key_id: example.key.key_id,
      algorithm: example.key.algorithm,
      public_key: b64uDecode(example.key.public_key),
      status: 'pinned' as const,
    }));
    const offline = createVerifyContext(crypto, { now: PROFILE_EXAMPLE_NOW });
    const trusting = createVerifyContext(crypto, { now: PROFILE_EXAMPLE_NOW, pinned: pinned.slice(1) });
    const [nano, standard, pq] = examples.map((example) => JSON.stringify(example.document));
    expect(verifyDocument(nano ?? '', offline)).toMatchObject({ status: 'PASS', trust: { status: 'unpinned' } });
    expect(verifyDocument(standard ?? '', offline).status).toBe('INDETERMINATE');
    expect(verifyDocument(standard ?? '', trusting)).toMatchObject({
      format: 'profile/standard',
      status: 'PASS',
      trust: { status: 'trusted' },
    });
    expect(verifyDocument(pq ?? '', trusting)).toMatchObject({
      format: 'profile/pq',
      status: 'PASS',
      trust: { status: 'trusted' },
    });
  });
});
