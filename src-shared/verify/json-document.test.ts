import { describe, expect, it } from 'vitest';
import { formatJsonDocument } from './json-document';

describe('formatJsonDocument', () => {
  it('indents by two spaces, keeps number spellings of text and ends with a newline', () => {
    expect(formatJsonDocument('{"a":[1.50,{}],"b":{"c":null,"d":[]},"e":"\\u00e9"}')).toBe(
      '{\n  "a": [\n    1.50,\n    {}\n  ],\n  "b": {\n    "c": null,\n    "d": []\n  },\n  "e": "é"\n}\n',
    );
  });

  it('writes plain values with the numbers JavaScript prints', () => {
    expect(formatJsonDocument({ n: 1.5, t: true })).toBe('{\n  "n": 1.5,\n  "t": true\n}\n');
  });

  it('refuses text that is not strict JSON', () => {
    expect(() => formatJsonDocument('{"a":1,"a":2}')).toThrow(/duplicate/i);
  });
});
