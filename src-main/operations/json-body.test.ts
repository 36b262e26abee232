import { describe, expect, it } from 'vitest';
import { describeError, OperationError } from './errors';
import { isJsonMediaType, parseJsonBody } from './json-body';

// The HTTP doors' one JSON body rule. Both doors are tested over real HTTP with it
// (src-main/http/service.test.ts, src-main/appapi/web-server.test.ts); these are its edges.
const bytes = (text: string): Uint8Array => new TextEncoder().encode(text);

function refusal(input: Uint8Array): ReturnType<typeof describeError> {
  try {
    parseJsonBody(input);
  } catch (error) {
    expect(error).toBeInstanceOf(OperationError);
    return describeError(error);
  }
  throw new Error('expected a refusal');
}

describe('JSON request bodies', () => {
  it('takes application/json with or without parameters, in any letter case, and nothing else', () => {
    for (const type of [
      'application/json',
      'Application/JSON',
      'APPLICATION/JSON; charset=UTF-8',
      ' application/json ;x=1',
    ])
      expect(isJsonMediaType(type), type).toBe(true);
    for (const type of [undefined, '', 'text/json', 'application/jsonx', 'application/json-seq', 'application/ld+json'])
      expect(isJsonMediaType(type), String(type)).toBe(false);
  });

  it('parses strictly into plain values', () => {
    expect(parseJsonBody(bytes('{"a":[1,"ü",null]}'))).toEqual({ a: [1, 'ü', null] });
  });

  it('refuses a duplicate name, invalid UTF-8 and a byte order mark as invalid_request with the fault’s pointer', () => {
    expect(refusal(bytes('{"a":{"b":1,"b":2}}'))).toMatchObject({
      kind: 'invalid_input',
      envelope: { code: 'invalid_request', details: [{ path: '/a/b', message: 'duplicate_name' }] },
    });
    expect(refusal(new Uint8Array([0x22, 0xff, 0x22]))).toMatchObject({
      envelope: { code: 'invalid_request', details: [{ message: 'invalid_utf8' }] },
    });
    expect(refusal(new Uint8Array([0xef, 0xbb, 0xbf, 0x7b, 0x7d]))).toMatchObject({
      envelope: { code: 'invalid_request', details: [{ message: 'bom' }] },
    });
  });
});
