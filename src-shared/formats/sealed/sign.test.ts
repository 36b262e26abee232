import { describe, expect, it } from 'vitest';
import { b64uDecode, createPortableProvider, utf8Decode } from '../../crypto';
import { sealDocument } from './sign';

const crypto = createPortableProvider();
const secret = { key_id: 'k', key: new Uint8Array(32).fill(5) };

describe('sealDocument', () => {
  it('writes every member and decrypts back to the plaintext', () => {
    const iv = new Uint8Array(12).fill(1);
    const doc = sealDocument('{"a":1}', secret, crypto, { iv, aad: Uint8Array.of(7) });
    expect(Object.keys(doc)).toEqual(['sealed', 'enc', 'key_id', 'iv', 'ciphertext', 'tag', 'aad']);
    const plain = crypto.aes256gcmDecrypt(
      secret.key,
      iv,
      b64uDecode(doc['ciphertext'] as string),
      b64uDecode(doc['tag'] as string),
      Uint8Array.of(7),
    );
    expect(utf8Decode(plain)).toBe('{"a":1}');
  });

  it('uses a fresh random IV by default', () => {
    expect(sealDocument('x', secret, crypto)['iv']).not.toBe(sealDocument('x', secret, crypto)['iv']);
  });

  it('refuses a bad IV, key or plaintext', () => {
    expect(() => sealDocument('x', secret, crypto, { iv: new Uint8Array(8) })).toThrow(RangeError);
    expect(() => sealDocument('x', { key_id: 'k', key: new Uint8Array(16) }, crypto)).toThrow(RangeError);
    expect(() => sealDocument(5 as never, secret, crypto)).toThrow(TypeError);
  });
});
