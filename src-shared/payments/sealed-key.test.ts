import { ed25519 } from '@noble/curves/ed25519.js';
import { describe, expect, it } from 'vitest';

import { didKeyFromEd25519 } from '../crypto/did-key';
import { b64uDecode, b64uEncode, hexDecode, utf8Encode } from '../crypto/encoding';
import { hpkeOpen, x25519FromEd25519Seed } from '../crypto/hpke';
import { SEALED_KEY_FORMAT, openSealedApiKey, parseSealedKeyEnvelope, sealApiKey } from './sealed-key';
import type { SealedKeyEnvelope } from './sealed-key';

const TX = '0x' + '5a'.repeat(32);
const OTHER_TX = '0x' + '5b'.repeat(32);
const KEY = 'svc_pro_0123456789abcdefghijklmnopqrstuv';

function identity(): { seed: Uint8Array; did: string } {
  const seed = ed25519.utils.randomSecretKey();
  return { seed, did: didKeyFromEd25519(ed25519.getPublicKey(seed)) };
}

function without(object: Record<string, unknown>, member: string): Record<string, unknown> {
  return Object.fromEntries(Object.entries(object).filter(([name]) => name !== member));
}

/** The envelope as the pickup route serves it: through JSON and back. */
function overTheWire(envelope: SealedKeyEnvelope): Record<string, unknown> {
  return JSON.parse(JSON.stringify(envelope)) as Record<string, unknown>;
}

describe('sealApiKey / openSealedApiKey', () => {
  it('the envelope has exactly the documented members and words', () => {
    const buyer = identity();
    const envelope = sealApiKey(buyer.did, KEY, TX);
    expect(Object.keys(envelope)).toEqual(['format', 'tx_hash', 'recipient', 'suite', 'enc', 'ciphertext']);
    expect(envelope.format).toBe('evroom.sealed-apikey/1');
    expect(envelope.tx_hash).toBe(TX);
    expect(envelope.recipient).toBe(buyer.did);
    expect(envelope.suite).toEqual({ kem: 'DHKEM(X25519, HKDF-SHA256)', kdf: 'HKDF-SHA256', aead: 'ChaCha20Poly1305' });
    expect(b64uDecode(envelope.enc)).toHaveLength(32);
    expect(b64uDecode(envelope.ciphertext)).toHaveLength(KEY.length + 16);
    expect(JSON.stringify(envelope)).not.toContain(KEY);
  });

  it("the DID's own seed opens it, after a trip through JSON", () => {
    const buyer = identity();
    expect(openSealedApiKey(overTheWire(sealApiKey(buyer.did, KEY, TX)), buyer.seed)).toBe(KEY);
  });

  it('is plain RFC 9180 HPKE: info is the format name, aad the transaction hash', () => {
    const buyer = identity();
    const envelope = sealApiKey(buyer.did, KEY, TX);
    const opened = hpkeOpen(
      x25519FromEd25519Seed(buyer.seed),
      b64uDecode(envelope.enc),
      b64uDecode(envelope.ciphertext),
      utf8Encode(SEALED_KEY_FORMAT),
      utf8Encode(TX),
    );
    expect(new TextDecoder().decode(opened)).toBe(KEY);
  });

  it('two seals of one key differ (a fresh ephemeral key each time)', () => {
    const buyer = identity();
    const first = sealApiKey(buyer.did, KEY, TX);
    const second = sealApiKey(buyer.did, KEY, TX);
    expect(first.enc).not.toBe(second.enc);
    expect(first.ciphertext).not.toBe(second.ciphertext);
  });

  it('another Ed25519 seed cannot open it, even when the envelope is relabelled to its DID', () => {
    const buyer = identity();
    const thief = identity();
    const envelope = sealApiKey(buyer.did, KEY, TX);
    expect(() => openSealedApiKey(overTheWire(envelope), thief.seed)).toThrow(
      `sealed to ${buyer.did}, not to this key (${thief.did})`,
    );
    // The label is not the protection: with the recipient rewritten, the cryptography refuses.
    const relabelled = { ...overTheWire(envelope), recipient: thief.did };
    expect(() => openSealedApiKey(relabelled, thief.seed)).toThrow(/cannot open the key of 0x5a5a/);
  });

  it('an envelope moved to another transaction does not open (the tx_hash is the aad)', () => {
    const buyer = identity();
    const moved = { ...overTheWire(sealApiKey(buyer.did, KEY, TX)), tx_hash: OTHER_TX };
    expect(() => openSealedApiKey(moved, buyer.seed)).toThrow(/cannot open the key of 0x5b5b/);
  });

  it('an altered enc or ciphertext does not open', () => {
    const buyer = identity();
    const envelope = overTheWire(sealApiKey(buyer.did, KEY, TX));
    for (const member of ['enc', 'ciphertext'] as const) {
      const bytes = b64uDecode(envelope[member] as string);
      bytes[3] = (bytes[3] ?? 0) ^ 0x80;
      expect(() => openSealedApiKey({ ...envelope, [member]: b64uEncode(bytes) }, buyer.seed)).toThrow(/cannot open/);
    }
  });

  it('W3C did:key vector seed 0 round-trips (an independent DID for a known seed)', () => {
    const seed = hexDecode('0000000000000000000000000000000000000000000000000000000000000000');
    const did = 'did:key:z6MkiTBz1ymuepAQ4HEHYSF1H8quG5GLVVQR3djdX3mDooWp';
    expect(openSealedApiKey(sealApiKey(did, KEY, TX), seed)).toBe(KEY);
  });
});

describe('sealApiKey refuses bad arguments, never echoing the key', () => {
  const buyer = identity();
  it('a DID that is not an Ed25519 did:key', () => {
    expect(() => sealApiKey('did:web:example.com', KEY, TX)).toThrow(/recipientDid is not an Ed25519 did:key/);
    expect(() => sealApiKey('did:key:z6LShs9GGnqk85isEBzzshkuVWrVKsRp24GnDuHk8QWkARMW', KEY, TX)).toThrow(
      /not an Ed25519 did:key/,
    );
  });
  it('a did:key of a small-order point (the identity)', () => {
    const identityPoint = new Uint8Array(32);
    identityPoint[0] = 1;
    expect(() => sealApiKey(didKeyFromEd25519(identityPoint), KEY, TX)).toThrow(
      /not a canonical Ed25519 point of large order/,
    );
  });
  it('a transaction hash of the wrong shape', () => {
    expect(() => sealApiKey(buyer.did, KEY, TX.toUpperCase())).toThrow(RangeError);
    expect(() => sealApiKey(buyer.did, KEY, TX.slice(0, -1))).toThrow(/64 lowercase hex/);
  });
  it('a key that is empty, too long, or has spaces or control characters', () => {
    for (const bad of ['', 'x'.repeat(129), 'svc_pro_a b', 'svc_pro_\n', 'svc_pro_é']) {
      let message = '';
      try {
        sealApiKey(buyer.did, bad, TX);
      } catch (error) {
        message = (error as Error).message;
      }
      expect(message).toMatch(/apiKey must be 1 to 128 printable ASCII/);
      if (bad !== '') expect(message).not.toContain(bad);
    }
  });
  it('arguments of the wrong type', () => {
    expect(() => sealApiKey(1 as unknown as string, KEY, TX)).toThrow(TypeError);
    expect(() => sealApiKey(buyer.did, null as unknown as string, TX)).toThrow(TypeError);
  });
});

describe('openSealedApiKey / parseSealedKeyEnvelope refuse malformed envelopes with the reason', () => {
  const buyer = identity();
  const good = overTheWire(sealApiKey(buyer.did, KEY, TX));
  const cases: [string, unknown, RegExp][] = [
    ['not an object', 'text', /must be a JSON object/],
    ['null', null, /must be a JSON object/],
    ['an array', [good], /must be a JSON object/],
    ['an unknown member', { ...good, key: 'x' }, /unknown member "key"/],
    ['a missing member', without(good, 'enc'), /lacks "enc"/],
    ['another format', { ...good, format: 'evroom.sealed-apikey/2' }, /format must be "evroom.sealed-apikey\/1"/],
    ['an uppercase tx_hash', { ...good, tx_hash: TX.toUpperCase() }, /tx_hash must be "0x" and 64 lowercase hex/],
    ['a short tx_hash', { ...good, tx_hash: '0x1234' }, /tx_hash must be/],
    ['a recipient that is no did:key', { ...good, recipient: 'mailto:a@b.c' }, /recipient is not an Ed25519 did:key/],
    ['a recipient of the wrong type', { ...good, recipient: 7 }, /recipient must be a did:key string/],
    [
      'a suite of another KEM',
      { ...good, suite: { kem: 'DHKEM(P-256, HKDF-SHA256)', kdf: 'HKDF-SHA256', aead: 'ChaCha20Poly1305' } },
      /suite.kem must be "DHKEM\(X25519, HKDF-SHA256\)"/,
    ],
    [
      'a suite of another AEAD',
      { ...good, suite: { kem: 'DHKEM(X25519, HKDF-SHA256)', kdf: 'HKDF-SHA256', aead: 'AES-128-GCM' } },
      /suite.aead must be "ChaCha20Poly1305"/,
    ],
    [
      'a suite with an extra word',
      {
        ...good,
        suite: { kem: 'DHKEM(X25519, HKDF-SHA256)', kdf: 'HKDF-SHA256', aead: 'ChaCha20Poly1305', mode: 'auth' },
      },
      /unknown member "mode"/,
    ],
    ['a suite that is a string', { ...good, suite: 'X25519' }, /"suite" must be a JSON object/],
    ['padded base64url', { ...good, enc: `${good.enc as string}=` }, /enc is not canonical unpadded base64url/],
    [
      'standard base64 characters',
      { ...good, ciphertext: (good.ciphertext as string).replace(/./, '+') },
      /ciphertext is not canonical/,
    ],
    ['an enc of 31 bytes', { ...good, enc: b64uEncode(new Uint8Array(31)) }, /enc must decode to 32 bytes, got 31/],
    [
      'a ciphertext of only a tag',
      { ...good, ciphertext: b64uEncode(new Uint8Array(16)) },
      /longer than the 16-byte tag/,
    ],
    ['a huge ciphertext', { ...good, ciphertext: 'A'.repeat(100_000) }, /ciphertext is too long/],
  ];
  it.each(cases)('%s', (_name, envelope, reason) => {
    expect(() => parseSealedKeyEnvelope(envelope)).toThrow(reason);
    expect(() => openSealedApiKey(envelope, buyer.seed)).toThrow(reason);
  });
  it('accepts the good one', () => {
    expect(parseSealedKeyEnvelope(good)).toEqual(good);
  });
  it('a seed of the wrong length or type', () => {
    expect(() => openSealedApiKey(good, new Uint8Array(31))).toThrow(RangeError);
    expect(() => openSealedApiKey(good, 'seed' as unknown as Uint8Array)).toThrow(TypeError);
  });
});
