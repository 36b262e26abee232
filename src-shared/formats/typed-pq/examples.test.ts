import { describe, expect, it } from 'vitest';
import { b64uDecode, concatBytes, createPortableProvider, hexDecode, hexEncode, utf8Encode } from '../../crypto';
import { createVerifyContext } from '../../verify/context';
import { verifyDocument } from '../../verify/verify';
import { typedPqWorkedExample } from './examples';

const crypto = createPortableProvider();
const example = typedPqWorkedExample(crypto);

describe('typed-pq worked example', () => {
  it('pins the fragment texts, h_i and the digest (documented in docs/); the signature is hedged and not pinned', () => {
    expect(example.fragmentTexts).toEqual([
      '{"input":"Hello, Evidence Room.","kind":"request","purpose":"summarize"}',
      '{"kind":"response","model":"example-model","output_tokens":12}',
      '{"kind":"policy","region":"eu","retention_days":365}',
    ]);
    expect(example.fragmentDigests).toEqual([
      '46ab1aa50d3539b60666c606a81167054a8be16c6c389c419ef61a6d6ab67f26',
      'ff71e722505347870dead61ce6d1bec2588f3972fcf4d467152af70f9b1012cb',
      'fddfd1606739f10bbddd964a0491e1ae4270f31db4bfef8afe8be2532ccc33c2',
    ]);
    expect(example.digest).toBe('e1fdbbf5fe6aacb2c022572f4659a1720ed9501864350d6d3bd60060a38400f9');
  });

  it('each pinned value is recomputed from the texts, and the key is the seed key', () => {
    const hashes = example.fragmentTexts.map((text) => crypto.sha256(utf8Encode(text)));
    expect(hashes.map(hexEncode)).toEqual(example.fragmentDigests);
    expect(hexEncode(crypto.sha256(concatBytes(...hashes)))).toBe(example.digest);
    expect(b64uDecode(example.key.public_key)).toEqual(crypto.mldsa65KeyGen(hexDecode(example.seedHex)).publicKey);
  });

  it('verifies PASS: unpinned with the embedded key, trusted once the key is pinned', () => {
    const text = JSON.stringify(example.document);
    const now = new Date('2026-06-01T00:00:00.000Z');
    expect(verifyDocument(text, createVerifyContext(crypto, { now }))).toMatchObject({
      status: 'PASS',
      trust: { status: 'unpinned' },
    });
    const pinned = [
      {
        key_id: example.key.key_id,
        algorithm: example.key.algorithm,
        public_key: b64uDecode(example.key.public_key),
        status: 'pinned' as const,
      },
    ];
    expect(verifyDocument(text, createVerifyContext(crypto, { now, pinned }))).toMatchObject({
      format: 'typed-pq',
      status: 'PASS',
      trust: { status: 'trusted', key_id: 'did:svc:evroom:example-pq1' },
    });
  });
});
