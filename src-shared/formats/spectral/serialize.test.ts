import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parseJsonTree } from '../../json';
import type { JsonObjectNode } from '../../json/types';
import type { JsonObject } from '../../verify/fields';
import { javascriptMemberOrder, spectralSignedBytes } from './serialize';

function corpus(file: string): string {
  return readFileSync(fileURLToPath(new URL(`../../../test-vectors/spectral/${file}`, import.meta.url)), 'utf8');
}

function tree(text: string): JsonObjectNode {
  return parseJsonTree(text) as JsonObjectNode;
}

describe('Spectral signed bytes', () => {
  it('orders members as a JavaScript object does: array indices first, ascending', () => {
    const members: [string, number][] = [
      ['z', 0],
      ['10', 1],
      ['2', 2],
      ['02', 3],
      ['4294967295', 4],
      ['4294967294', 5],
    ];
    const order = javascriptMemberOrder(members).map(([name]) => name);
    expect(order).toEqual(['2', '10', '4294967294', 'z', '02', '4294967295']);
    const plain = JSON.parse('{"z":0,"10":1,"2":2,"02":3,"4294967295":4,"4294967294":5}') as object;
    expect(order).toEqual(Object.keys(plain));
  });

  it('rebuilds JSON.stringify’s bytes from respelled numbers and another member order', () => {
    const original = spectralSignedBytes(tree(corpus('ed25519-valid.json')), 'ed25519');
    const relayed = spectralSignedBytes(tree(corpus('ed25519-relay-respelled.json')), 'ed25519');
    expect(relayed).toEqual(original);
    const {
      signature: _signature,
      public_key: _key,
      signed_payload_sha256: _digest,
      signature_algo: _algo,
      ...payload
    } = JSON.parse(corpus('ed25519-relay-respelled.json')) as JsonObject;
    expect(relayed.text).toBe(JSON.stringify(payload));
  });

  it('leaves out a __proto__ member in the canonical form, as the producer’s canonicalize does', () => {
    const text = '{"b":{"__proto__":{"x":1},"a":1},"__proto__":2,"10":[{"b":1,"a":2}]}';
    expect(spectralSignedBytes(tree(text), 'ed25519-canonical')).toEqual({
      text: '{"10":[{"a":2,"b":1}],"b":{"a":1}}',
      unsigned: ['/__proto__', '/b/__proto__'],
    });
    expect(spectralSignedBytes(tree(text), 'ed25519').text).toBe(
      '{"10":[{"b":1,"a":2}],"b":{"__proto__":{"x":1},"a":1},"__proto__":2}',
    );
  });
});
