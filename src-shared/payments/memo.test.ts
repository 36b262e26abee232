import { describe, expect, it } from 'vitest';
import { didKeyFromEd25519 } from '../crypto/did-key';
import { hexEncode, utf8Encode } from '../crypto/encoding';
import {
  MAX_MEMO_BYTES,
  TRANSFER_SELECTOR,
  contactKind,
  deliveryAddress,
  encodeMemo,
  normalizeContact,
  parseMemo,
  splitTransferCalldata,
  transferCalldata,
} from './memo';

const TREASURY = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8';
const DID = didKeyFromEd25519(new Uint8Array(32).fill(7));

function reasonOf(bytes: Uint8Array): string {
  const result = parseMemo(bytes);
  if (result.ok) throw new Error('expected a refusal');
  return result.reason;
}

describe('transfer call data', () => {
  it('is the selector of transfer(address,uint256), the two words and the memo, and splits back', () => {
    expect(hexEncode(TRANSFER_SELECTOR)).toBe('a9059cbb');
    const memo = utf8Encode('{"contact":"a@b.example","tier":"pro"}');
    const data = transferCalldata(TREASURY, 99_000_000n, memo);
    expect(hexEncode(data.subarray(0, 68))).toBe(
      'a9059cbb' +
        '00000000000000000000000070997970c51812dc3a010c7d01b50e0d17dc79c8' +
        '0000000000000000000000000000000000000000000000000000000005e69ec0',
    );
    expect(splitTransferCalldata(data)).toEqual({
      recipient: TREASURY.toLowerCase(),
      amount: 99_000_000n,
      memo,
    });
    expect(splitTransferCalldata(transferCalldata(TREASURY, 1n, new Uint8Array()))?.memo).toEqual(new Uint8Array());
  });

  it('refuses what is not a transfer call, and bad arguments', () => {
    const data = transferCalldata(TREASURY, 5n, new Uint8Array([1]));
    expect(splitTransferCalldata(data.subarray(0, 67))).toBeUndefined();
    const otherSelector = data.slice();
    otherSelector[0] = 0x23;
    expect(splitTransferCalldata(otherSelector)).toBeUndefined();
    const dirtyAddressWord = data.slice();
    dirtyAddressWord[5] = 1;
    expect(splitTransferCalldata(dirtyAddressWord)).toBeUndefined();
    expect(() => transferCalldata('0x1234', 1n, new Uint8Array())).toThrow(RangeError);
    expect(() => transferCalldata(TREASURY, -1n, new Uint8Array())).toThrow(RangeError);
    expect(() => transferCalldata(TREASURY, 1n << 256n, new Uint8Array())).toThrow(RangeError);
  });
});

describe('memo', () => {
  it('is written as JCS and read back', () => {
    const bytes = encodeMemo({ tier: 'pro', contact: 'buyer@example.com', issuer_did: DID });
    expect(new TextDecoder().decode(bytes)).toBe(`{"contact":"buyer@example.com","issuer_did":"${DID}","tier":"pro"}`);
    expect(parseMemo(bytes)).toEqual({
      ok: true,
      memo: { tier: 'pro', contact: 'buyer@example.com', issuer_did: DID },
    });
    // Members in any order, with whitespace: read all the same.
    expect(parseMemo(utf8Encode(' { "tier" : "scale", "contact": "example.org" } '))).toEqual({
      ok: true,
      memo: { tier: 'scale', contact: 'example.org' },
    });
    expect(() => encodeMemo({ tier: 'pro', contact: 'not a contact' })).toThrow(RangeError);
  });

  it('refuses every malformed memo with a reason in words', () => {
    expect(reasonOf(new Uint8Array())).toMatch(/no memo/);
    expect(reasonOf(utf8Encode('{"tier":"pro","tier":"pro","contact":"a@b.example"}'))).toMatch(/names a member twice/);
    expect(reasonOf(Uint8Array.of(0x7b, 0xff, 0x7d))).toMatch(/not valid UTF-8/);
    expect(reasonOf(utf8Encode('[1]'))).toMatch(/must be a JSON object, not an array/);
    expect(reasonOf(utf8Encode('"pro"'))).toMatch(/not a string/);
    expect(reasonOf(utf8Encode('{"tier":"pro"'))).toMatch(/not valid JSON/);
    expect(reasonOf(utf8Encode('{"tier":"pro","contact":"a@b.example","extra":"x"}'))).toMatch(
      /member "extra" that PROTOCOL 13 does not define/,
    );
    expect(reasonOf(utf8Encode('{"tier":"gold","contact":"a@b.example"}'))).toMatch(/tier must be one of/);
    expect(reasonOf(utf8Encode('{"tier":"pro"}'))).toMatch(/no contact/);
    expect(reasonOf(utf8Encode('{"tier":"pro","contact":7}'))).toMatch(/contact must be a string, not a number/);
    expect(reasonOf(utf8Encode('{"tier":"pro","contact":"a@b.example","issuer_did":"nope"}'))).toMatch(
      /issuer_did is not a DID/,
    );
    expect(
      reasonOf(utf8Encode(`{"tier":"pro","contact":"a@b.example","issuer_did":"did:web:${'x'.repeat(520)}"}`)),
    ).toMatch(/longer than 512/);
    const big = utf8Encode(`{"tier":"pro","contact":"a@b.example","issuer_did":"did:web:${'x'.repeat(1000)}"}`);
    expect(big.length).toBeGreaterThan(MAX_MEMO_BYTES);
    expect(reasonOf(big)).toMatch(/at most 1024 are read/);
    expect(reasonOf(utf8Encode('\ufeff{"tier":"pro","contact":"a@b.example"}'))).toMatch(/not valid JSON/);
  });

  it('takes e-mail addresses, domains and Ed25519 did:keys as contacts, and nothing else', () => {
    expect(contactKind('Buyer.Name+tag@Example.COM')).toBe('email');
    expect(contactKind('example.org')).toBe('domain');
    expect(contactKind(DID)).toBe('did_key');
    expect(normalizeContact('Buyer@Example.COM')).toBe('buyer@example.com');
    expect(normalizeContact(DID)).toBe(DID);
    expect(deliveryAddress('Example.ORG')).toBe('postmaster@example.org');
    expect(deliveryAddress(DID)).toBe(DID);
    for (const bad of [
      'localhost',
      'a@localhost',
      '@example.com',
      'a b@example.com',
      '"quoted"@example.com',
      `${'a'.repeat(65)}@example.com`,
      `a@${'b'.repeat(250)}.com`,
      '-bad.example',
      'bad-.example',
      'exa_mple.com',
      '127.0.0.1',
      'did:web:example.com',
      'did:key:z6MkTooShort',
      `did:key:z${'1'.repeat(10)}`,
      '',
    ]) {
      expect(() => contactKind(bad), bad).toThrow(RangeError);
      expect(reasonOf(utf8Encode(JSON.stringify({ tier: 'pro', contact: bad }))), bad).toMatch(/contact/i);
    }
  });
});
