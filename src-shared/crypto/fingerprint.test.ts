import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { b64uDecode } from './encoding';
import { FINGERPRINT_PATTERN, fingerprintKeyId, keyFingerprint, keyFingerprintOfB64u } from './fingerprint';

// RFC 8032 section 7.1, test 1: a real Ed25519 public key.
const RFC8032_KEY = b64uDecode('11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo');

describe('key fingerprints to read aloud', () => {
  it('are the first 128 bits of SHA-256 over the raw key, as 8 groups of 4 uppercase hex digits', () => {
    const digest = createHash('sha256').update(RFC8032_KEY).digest('hex').toUpperCase();
    const expected = digest.slice(0, 32).match(/.{4}/g)!.join('-');
    expect(keyFingerprint(RFC8032_KEY)).toBe(expected);
    expect(keyFingerprint(RFC8032_KEY)).toMatch(FINGERPRINT_PATTERN);
    // Fixed value, so a change of form is a visible change (docs/protocol.md quotes it).
    expect(keyFingerprint(new Uint8Array(32))).toBe('6668-7AAD-F862-BD77-6C8F-C18B-8E9F-8E20');
  });

  it('differ for different keys and are the same for the same bytes in another array', () => {
    const other = RFC8032_KEY.slice();
    other[0] = other[0]! ^ 1;
    expect(keyFingerprint(other)).not.toBe(keyFingerprint(RFC8032_KEY));
    expect(keyFingerprint(RFC8032_KEY.slice())).toBe(keyFingerprint(RFC8032_KEY));
  });

  it('name a key without a key id as key-fingerprint:<fingerprint>', () => {
    expect(fingerprintKeyId(RFC8032_KEY)).toBe(`key-fingerprint:${keyFingerprint(RFC8032_KEY)}`);
  });

  it('read a key given as base64url, and give nothing for text that is not one', () => {
    expect(keyFingerprintOfB64u('11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo')).toBe(keyFingerprint(RFC8032_KEY));
    expect(keyFingerprintOfB64u('not base64url!')).toBeUndefined();
    expect(keyFingerprintOfB64u('')).toBeUndefined();
  });

  it('refuse what is not key bytes', () => {
    expect(() => keyFingerprint('11qY' as never)).toThrow(TypeError);
    expect(() => keyFingerprint(new Uint8Array(0))).toThrow(RangeError);
  });
});
