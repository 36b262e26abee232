import { describe, expect, it } from 'vitest';
import { b64uDecode, concatBytes, createPortableProvider, hexDecode, hexEncode, utf8Encode } from '../../crypto';
import { createVerifyContext } from '../../verify/context';
import { verifyDocument } from '../../verify/verify';
import { typedPqWorkedExample } from './examples';

const crypto = createPortableProvider();
const example = typedPqWorkedExample(crypto);

describe('typed-pq worked example', () => {
  it('pins every digest (documented in docs/); the signature is hedged and not pinned', () => {
    expect(example.fragmentTexts).toEqual([
      '{"fragment_id":"f1","fragment_type":"decomposition","index":0,"text_hash":"0d9a2be76803e6cc2caea8a45d0df2d6f83303e714abc0fd807cd2b73fc31583"}',
      '{"fragment_id":"f2","fragment_type":"retrieval","index":1,"text_hash":"c37294bbea1f883463b4ea7b3539baa0104872b6ffefc3d9774cd5ecb1be2fc7"}',
      '{"fragment_id":"f3","fragment_type":"final","index":2,"text_hash":"bde024a87d3ab7647282918d6d10e41493fa858da39d7becd37cfd8ec85d5764"}',
    ]);
    expect(example.fragmentDigests).toEqual([
      '2d990c40e2633dc2a719ae272a01b3f558c4763c7fb572231f0c1f5c35173ab5',
      '5fa7f4feefc12b951fd3d0377fa228681bcfc4ec3d5f2722677d4fb2f8aca977',
      'a54499d7ef5ef7ea077e7d98a1731741dd582f8a3d8945b4892a41f41c06040e',
    ]);
    expect(example.attested).toEqual([true, false, true]);
    expect(example.aggRoot).toBe('3a1778adba55c131d0e03be0d6988c0daae8923689438e0feadb7d3e7b1246d2');
    expect(example.baseDigest).toBe('dcc69135dd3060dffb5573a6f341aae0822678a6811cacdf95e3d312b9c3ebe8');
    expect(example.policyDigest).toBe('9bf8455a45d983ac7ec044471fc1172dd9a4d1d1ed5fb388ba9517fb912b4a28');
    expect(example.payloadDigest).toBe('d4a93c35c31e1c89e3c779c383bcc94c8b59fed46076c12c90d6b0f63d1fddc7');
  });

  it('each pinned value is recomputed from the texts, and the key is the seed key', () => {
    const digests = example.fragmentTexts.map((text) => crypto.sha256(utf8Encode(text)));
    expect(digests.map(hexEncode)).toEqual(example.fragmentDigests);
    const attested = [example.fragmentDigests[0] as string, example.fragmentDigests[2] as string].sort();
    expect(hexEncode(crypto.sha256(hexDecode(attested.join(''))))).toBe(example.aggRoot);
    expect(example.policyDigest).toBe(
      hexEncode(crypto.sha256(utf8Encode('{"absence_bound":0,"sign_types":["decomposition","final"]}'))),
    );
    const payload = crypto.sha256(
      concatBytes(hexDecode(example.baseDigest), hexDecode(example.aggRoot), hexDecode(example.policyDigest)),
    );
    expect(hexEncode(payload)).toBe(example.payloadDigest);
    expect(b64uDecode(example.key.public_key)).toEqual(crypto.mldsa65KeyGen(hexDecode(example.seedHex)).publicKey);
  });

  it('verifies PASS: unpinned with the inline key, trusted once its bytes are pinned', () => {
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
