import { describe, expect, it } from 'vitest';
import { createPortableProvider, hexEncode, utf8Encode } from '../crypto';
import { signClassical } from '../formats/classical';
import { typedWorkedExample } from '../formats/typed';
import { wearableWorkedExample } from '../formats/wearable/example';
import { signedContent } from './signed-content';

const crypto = createPortableProvider();

describe('signedContent', () => {
  it('shows SKP(signed_payload) for a classical receipt, numbers as written', () => {
    const text = signClassical('{"b":1.50,"a":2}', new Uint8Array(32).fill(3), crypto);
    const [content] = signedContent('classical', utf8Encode(text), crypto);
    expect(content?.text).toBe('{"a":2,"b":1.50}');
    expect(content?.sha256).toBe(hexEncode(crypto.sha256(utf8Encode('{"a":2,"b":1.50}'))));
  });

  it('shows M and P of a wearable receipt whose hashes are the receipt’s own', () => {
    const example = wearableWorkedExample(crypto);
    const contents = signedContent('wearable/r2.0.0', utf8Encode(JSON.stringify(example.receipt)), crypto);
    expect(contents.map((content) => content.sha256)).toEqual([example.observationSha256, example.payloadSha256]);
    expect(contents[0]?.text).toBe(example.canonicalMessage);
  });

  it('shows P of a typed contract whose SHA-256 is payload_sha256', () => {
    const example = typedWorkedExample(crypto);
    const [content] = signedContent(
      `typed/${String(example.contract['contract_type'])}`,
      utf8Encode(JSON.stringify(example.contract)),
      crypto,
    );
    expect(content?.sha256).toBe(example.contract['payload_sha256']);
  });

  it('shows nothing for a document that does not parse or a sealed one', () => {
    expect(signedContent('classical', utf8Encode('{"a":'), crypto)).toEqual([]);
    expect(signedContent('sealed', utf8Encode('{"sealed":true}'), crypto)).toEqual([]);
  });
});
