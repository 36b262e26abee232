import { createCipheriv, createDecipheriv } from 'node:crypto';

import { CipherSuite, HkdfSha256 } from '@hpke/core';
import type { AeadEncryptionContext, AeadInterface } from '@hpke/core';
import { DhkemX25519HkdfSha256 } from '@hpke/dhkem-x25519';
import { ed25519, x25519 } from '@noble/curves/ed25519.js';
import { describe, expect, it } from 'vitest';

import { base58btcDecode, hexDecode, hexEncode, utf8Encode } from './encoding';
import { HPKE_SUITE, hpkeOpen, hpkeSeal, x25519FromEd25519Public, x25519FromEd25519Seed } from './hpke';

/**
 * RFC 9180 Appendix A.2.1: DHKEM(X25519, HKDF-SHA256), HKDF-SHA256, ChaCha20Poly1305, mode_base,
 * and its first encryption (A.2.1.1, sequence number 0, which is what single-shot Seal makes).
 * Source: https://www.rfc-editor.org/rfc/rfc9180.html#appendix-A.2.1, compared value by value with
 * the RFC's source text, draft-irtf-cfrg-hpke.md of github.com/cfrg/draft-irtf-cfrg-hpke (commit
 * b1f7cb0cdeab6906c61b3d6574e8bdfdbe1cd3fb, section "DHKEM(X25519, HKDF-SHA256), HKDF-SHA256, ChaCha20Poly1305").
 */
const A_2_1 = {
  mode: 0,
  kemId: 32,
  kdfId: 1,
  aeadId: 3,
  info: '4f6465206f6e2061204772656369616e2055726e',
  ikmE: '909a9b35d3dc4713a5e72a4da274b55d3d3821a37e5d099e74a647db583a904b',
  pkEm: '1afa08d3dec047a643885163f1180476fa7ddb54c6a8029ea33f95796bf2ac4a',
  skEm: 'f4ec9b33b792c372c1d2c2063507b684ef925b8c75a42dbcbf57d63ccd381600',
  ikmR: '1ac01f181fdf9f352797655161c58b75c656a6cc2716dcb66372da835542e1df',
  pkRm: '4310ee97d88cc1f088a5576c77ab0cf5c3ac797f3d95139c6c84b5429c59662a',
  skRm: '8057991eef8f1f1af18f4a9491d16a1ce333f695d4db8e38da75975c4478e0fb',
  enc: '1afa08d3dec047a643885163f1180476fa7ddb54c6a8029ea33f95796bf2ac4a',
  // A.2.1.1, sequence number 0
  pt: '4265617574792069732074727574682c20747275746820626561757479',
  aad: '436f756e742d30',
  ct: '1c5250d8034ec2b784ba2cfd69dbdb8af406cfe3ff938e131f0def8c8b60b4db21993c62ce81883d2dd1b51a28',
};

/**
 * W3C CCG did:key vectors, test-vectors/ed25519-x25519.json of github.com/w3c-ccg/did-method-key
 * (commit 801b0a91ce5af882c389ca399fa1fd1a75229c09): an Ed25519 seed, its Ed25519 public key and
 * the X25519 key agreement key derived from it (publicKeyBase58 / privateKeyBase58).
 */
const W3C_ED_TO_X = [
  {
    seed: '0000000000000000000000000000000000000000000000000000000000000000',
    edPublic: '4zvwRjXUKGfvwnParsHAS3HuSVzV5cA4McphgmoCtajS',
    xPublic: '7By6kV2t2d188odEM4ExAve1UithKT6dLva4dwsDT3ak',
    xPrivate: '6QN8DfuN9hjgHgPvLXqgzqYE3jRRGRrmJQZkd5tL8paR',
  },
  {
    seed: '0000000000000000000000000000000000000000000000000000000000000001',
    edPublic: '6ASf5EcmmEHTgDJ4X4ZT5vT6iHVJBXPg5AN5YoTCpGWt',
    xPublic: 'FcoNC5NqP9CePWbhfz95iHaEsCjGkZUioK9Ck7Qiw286',
    xPrivate: 'HBTcN2MrXNRj9xF9oi8QqYyuEPv3JLLjQKuEgW9oxVKP',
  },
  {
    seed: '0000000000000000000000000000000000000000000000000000000000000002',
    edPublic: '8pM1DN3RiT8vbom5u1sNryaNT1nyL8CTTW3b5PwWXRBH',
    xPublic: 'A5fe37PAxhX5WNKngBpGHhC1KpNE7nwbK9oX2tqwxYxU',
    xPrivate: 'ACa4PPJ1LnPNq1iwS33V3Akh7WtnC71WkKFZ9ccM6sX2',
  },
];

/**
 * ChaCha20Poly1305 for @hpke/core from node:crypto (OpenSSL), since @hpke/chacha20poly1305 is not
 * installed: the other side's AEAD is then independent of @noble/ciphers too.
 */
const nodeChaCha20Poly1305: AeadInterface = {
  id: 0x0003,
  keySize: 32,
  nonceSize: 12,
  tagSize: 16,
  createEncryptionContext(key): AeadEncryptionContext {
    const raw = toBytes(key);
    return {
      seal(iv, data, aad) {
        const cipher = createCipheriv('chacha20-poly1305', raw, toBytes(iv), { authTagLength: 16 });
        const plaintext = toBytes(data);
        cipher.setAAD(toBytes(aad), { plaintextLength: plaintext.length });
        const out = Buffer.concat([cipher.update(plaintext), cipher.final(), cipher.getAuthTag()]);
        return Promise.resolve(toArrayBuffer(out));
      },
      open(iv, data, aad) {
        const sealed = toBytes(data);
        const body = sealed.subarray(0, sealed.length - 16);
        const decipher = createDecipheriv('chacha20-poly1305', raw, toBytes(iv), { authTagLength: 16 });
        decipher.setAAD(toBytes(aad), { plaintextLength: body.length });
        decipher.setAuthTag(sealed.subarray(sealed.length - 16));
        try {
          return Promise.resolve(toArrayBuffer(Buffer.concat([decipher.update(body), decipher.final()])));
        } catch (error) {
          return Promise.reject(error instanceof Error ? error : new Error(String(error)));
        }
      },
    };
  },
};

function toBytes(value: ArrayBufferLike | ArrayBufferView): Uint8Array {
  if (ArrayBuffer.isView(value)) return new Uint8Array(value.buffer, value.byteOffset, value.byteLength);
  return new Uint8Array(value);
}

/** A fresh ArrayBuffer of exactly these bytes (a Buffer's `.buffer` is Node's shared pool). */
function toArrayBuffer(bytes: Uint8Array): ArrayBuffer {
  const copy = new Uint8Array(bytes.length);
  copy.set(bytes);
  return copy.buffer;
}

function theirSuite(): CipherSuite {
  return new CipherSuite({ kem: new DhkemX25519HkdfSha256(), kdf: new HkdfSha256(), aead: nodeChaCha20Poly1305 });
}

/** `of` with one bit of the byte at `at` flipped. */
function flipped(of: Uint8Array, at = 0): Uint8Array {
  const changed = of.slice();
  changed[at] = (changed[at] ?? 0) ^ 0x01;
  return changed;
}

describe('hpkeSeal / hpkeOpen: RFC 9180 Appendix A.2.1 (mode_base, X25519, HKDF-SHA256, ChaCha20Poly1305)', () => {
  it('names the suite the vector names', () => {
    expect(HPKE_SUITE).toEqual({ kemId: A_2_1.kemId, kdfId: A_2_1.kdfId, aeadId: A_2_1.aeadId });
  });

  it('seals the vector exactly, with the ephemeral key derived from ikmE', () => {
    const sealed = hpkeSeal(hexDecode(A_2_1.pkRm), hexDecode(A_2_1.pt), hexDecode(A_2_1.info), hexDecode(A_2_1.aad), {
      ephemeralIkm: hexDecode(A_2_1.ikmE),
    });
    expect(hexEncode(sealed.enc)).toBe(A_2_1.enc);
    expect(hexEncode(sealed.enc)).toBe(A_2_1.pkEm);
    expect(hexEncode(sealed.ciphertext)).toBe(A_2_1.ct);
  });

  it('the vector key pairs hold together (skEm → pkEm, skRm → pkRm)', () => {
    expect(hexEncode(x25519.getPublicKey(hexDecode(A_2_1.skEm)))).toBe(A_2_1.pkEm);
    expect(hexEncode(x25519.getPublicKey(hexDecode(A_2_1.skRm)))).toBe(A_2_1.pkRm);
  });

  it('opens the vector with skRm', () => {
    const plaintext = hpkeOpen(
      hexDecode(A_2_1.skRm),
      hexDecode(A_2_1.enc),
      hexDecode(A_2_1.ct),
      hexDecode(A_2_1.info),
      hexDecode(A_2_1.aad),
    );
    expect(hexEncode(plaintext)).toBe(A_2_1.pt);
  });

  it('a fresh encapsulation differs each time and still opens', () => {
    const pkR = hexDecode(A_2_1.pkRm);
    const first = hpkeSeal(pkR, utf8Encode('same'), utf8Encode('info'), utf8Encode('aad'));
    const second = hpkeSeal(pkR, utf8Encode('same'), utf8Encode('info'), utf8Encode('aad'));
    expect(hexEncode(first.enc)).not.toBe(hexEncode(second.enc));
    expect(hexEncode(first.ciphertext)).not.toBe(hexEncode(second.ciphertext));
    const opened = hpkeOpen(
      hexDecode(A_2_1.skRm),
      second.enc,
      second.ciphertext,
      utf8Encode('info'),
      utf8Encode('aad'),
    );
    expect(new TextDecoder().decode(opened)).toBe('same');
  });
});

describe('interoperability with @hpke/core and @hpke/dhkem-x25519', () => {
  const info = utf8Encode('evroom.sealed-apikey/1');
  const aad = utf8Encode('0x' + 'ab'.repeat(32));
  const message = utf8Encode('svc_pro_an-api-key-for-the-test-0123456789');

  it('ours seals, theirs opens', async () => {
    const suite = theirSuite();
    const pair = await suite.kem.generateKeyPair();
    const pkR = new Uint8Array(await suite.kem.serializePublicKey(pair.publicKey));
    const sealed = hpkeSeal(pkR, message, info, aad);
    const opened = await suite.open({ recipientKey: pair, enc: sealed.enc, info }, sealed.ciphertext, aad);
    expect(hexEncode(new Uint8Array(opened))).toBe(hexEncode(message));
    // and theirs refuses what ours sealed under another aad: the aad is bound on both sides
    await expect(
      suite.open({ recipientKey: pair, enc: sealed.enc, info }, sealed.ciphertext, utf8Encode('other')),
    ).rejects.toThrow();
  });

  it('theirs seals, ours opens', async () => {
    const suite = theirSuite();
    const skR = x25519.utils.randomSecretKey();
    const recipientPublicKey = await suite.kem.deserializePublicKey(x25519.getPublicKey(skR));
    const sealed = await suite.seal({ recipientPublicKey, info }, message, aad);
    const opened = hpkeOpen(skR, new Uint8Array(sealed.enc), new Uint8Array(sealed.ct), info, aad);
    expect(hexEncode(opened)).toBe(hexEncode(message));
  });

  it('theirs opens the RFC vector too (the suite assembled for them is the vector suite)', async () => {
    const suite = theirSuite();
    const recipientKey = await suite.kem.deserializePrivateKey(hexDecode(A_2_1.skRm));
    const opened = await suite.open(
      { recipientKey, enc: hexDecode(A_2_1.enc), info: hexDecode(A_2_1.info) },
      hexDecode(A_2_1.ct),
      hexDecode(A_2_1.aad),
    );
    expect(hexEncode(new Uint8Array(opened))).toBe(A_2_1.pt);
  });
});

describe('hpkeOpen refuses anything altered', () => {
  const skR = hexDecode(A_2_1.skRm);
  const info = utf8Encode('evroom.sealed-apikey/1');
  const aad = utf8Encode('0x' + '01'.repeat(32));
  const sealed = hpkeSeal(hexDecode(A_2_1.pkRm), utf8Encode('svc_scale_secret'), info, aad);
  const failure = /HPKE: cannot open/;

  it('opens the untouched message', () => {
    expect(new TextDecoder().decode(hpkeOpen(skR, sealed.enc, sealed.ciphertext, info, aad))).toBe('svc_scale_secret');
  });
  it('a tampered enc', () => {
    expect(() => hpkeOpen(skR, flipped(sealed.enc, 5), sealed.ciphertext, info, aad)).toThrow(failure);
  });
  it('a tampered ciphertext, in the body and in the tag', () => {
    expect(() => hpkeOpen(skR, sealed.enc, flipped(sealed.ciphertext, 0), info, aad)).toThrow(failure);
    expect(() =>
      hpkeOpen(skR, sealed.enc, flipped(sealed.ciphertext, sealed.ciphertext.length - 1), info, aad),
    ).toThrow(failure);
  });
  it('a truncated ciphertext', () => {
    expect(() => hpkeOpen(skR, sealed.enc, sealed.ciphertext.subarray(1), info, aad)).toThrow(failure);
    expect(() => hpkeOpen(skR, sealed.enc, sealed.ciphertext.subarray(0, 15), info, aad)).toThrow(RangeError);
  });
  it('a tampered aad', () => {
    expect(() => hpkeOpen(skR, sealed.enc, sealed.ciphertext, info, flipped(aad, 3))).toThrow(failure);
    expect(() => hpkeOpen(skR, sealed.enc, sealed.ciphertext, info, new Uint8Array(0))).toThrow(failure);
  });
  it('a tampered info', () => {
    expect(() => hpkeOpen(skR, sealed.enc, sealed.ciphertext, flipped(info, 0), aad)).toThrow(failure);
  });
  it('a wrong key', () => {
    expect(() => hpkeOpen(x25519.utils.randomSecretKey(), sealed.enc, sealed.ciphertext, info, aad)).toThrow(failure);
  });
  it('an enc that is a low-order point (all-zero shared secret)', () => {
    expect(() => hpkeOpen(skR, new Uint8Array(32), sealed.ciphertext, info, aad)).toThrow(failure);
  });
});

describe('argument checks', () => {
  const pkR = hexDecode(A_2_1.pkRm);
  const none = new Uint8Array(0);
  it('seal: a key of the wrong length or type, bytes of the wrong type', () => {
    expect(() => hpkeSeal(pkR.subarray(1), none, none, none)).toThrow(RangeError);
    expect(() => hpkeSeal('key' as unknown as Uint8Array, none, none, none)).toThrow(TypeError);
    expect(() => hpkeSeal(pkR, 'text' as unknown as Uint8Array, none, none)).toThrow(TypeError);
    expect(() => hpkeSeal(pkR, none, none, none, { ephemeralIkm: 'x' as unknown as Uint8Array })).toThrow(TypeError);
  });
  it('seal: a low-order recipient key', () => {
    expect(() => hpkeSeal(new Uint8Array(32), none, none, none)).toThrow(RangeError);
  });
  it('open: lengths and types', () => {
    expect(() => hpkeOpen(pkR.subarray(2), pkR, new Uint8Array(16), none, none)).toThrow(RangeError);
    expect(() => hpkeOpen(pkR, pkR.subarray(2), new Uint8Array(16), none, none)).toThrow(RangeError);
    expect(() => hpkeOpen(pkR, pkR, null as unknown as Uint8Array, none, none)).toThrow(TypeError);
  });
});

describe('Ed25519 → X25519 (W3C did:key vectors)', () => {
  it.each(W3C_ED_TO_X)('seed $seed', (vector) => {
    const seed = hexDecode(vector.seed);
    const edPublic = ed25519.getPublicKey(seed);
    expect(hexEncode(edPublic)).toBe(hexEncode(base58btcDecode(vector.edPublic)));
    const xPublic = x25519FromEd25519Public(edPublic);
    expect(hexEncode(xPublic)).toBe(hexEncode(base58btcDecode(vector.xPublic)));
    const xSecret = x25519FromEd25519Seed(seed);
    expect(hexEncode(xSecret)).toBe(hexEncode(base58btcDecode(vector.xPrivate)));
    // the two maps agree: the secret's public key is the mapped public key
    expect(hexEncode(x25519.getPublicKey(xSecret))).toBe(hexEncode(xPublic));
  });

  it('a sealed message to a mapped Ed25519 key opens with the mapped seed only', () => {
    const seed = ed25519.utils.randomSecretKey();
    const other = ed25519.utils.randomSecretKey();
    const sealed = hpkeSeal(
      x25519FromEd25519Public(ed25519.getPublicKey(seed)),
      utf8Encode('k'),
      utf8Encode('i'),
      none(),
    );
    expect(
      new TextDecoder().decode(
        hpkeOpen(x25519FromEd25519Seed(seed), sealed.enc, sealed.ciphertext, utf8Encode('i'), none()),
      ),
    ).toBe('k');
    expect(() =>
      hpkeOpen(x25519FromEd25519Seed(other), sealed.enc, sealed.ciphertext, utf8Encode('i'), none()),
    ).toThrow(/HPKE: cannot open/);
  });

  it('refuses bytes that are not an Ed25519 point, and wrong lengths', () => {
    // y = 2 has no x on edwards25519 (it is not a square), so this is no point at all
    const notAPoint = new Uint8Array(32);
    notAPoint[0] = 2;
    expect(() => x25519FromEd25519Public(notAPoint)).toThrow(RangeError);
    expect(() => x25519FromEd25519Public(new Uint8Array(31))).toThrow(RangeError);
    expect(() => x25519FromEd25519Seed(new Uint8Array(33))).toThrow(RangeError);
  });
});

function none(): Uint8Array {
  return new Uint8Array(0);
}
