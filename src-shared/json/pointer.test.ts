import { describe, expect, it } from 'vitest';
import { escapePointerToken, pointerAppend, pointerFromTokens } from './pointer';

describe('JSON Pointer construction (RFC 6901)', () => {
  it('builds the pointers of RFC 6901 section 5', () => {
    // The document there is {"foo":["bar","baz"],"":0,"a/b":1,"c%d":2,"e^f":3,"g|h":4,"i\\j":5,"k\"l":6," ":7,"m~n":8}.
    const expected: [(string | number)[], string][] = [
      [[], ''],
      [['foo'], '/foo'],
      [['foo', 0], '/foo/0'],
      [[''], '/'],
      [['a/b'], '/a~1b'],
      [['c%d'], '/c%d'],
      [['e^f'], '/e^f'],
      [['g|h'], '/g|h'],
      [['i\\j'], '/i\\j'],
      [['k"l'], '/k"l'],
      [[' '], '/ '],
      [['m~n'], '/m~0n'],
    ];
    for (const [tokens, pointer] of expected) expect(pointerFromTokens(tokens)).toBe(pointer);
  });

  it('escapes ~ before / so that neither is read back wrongly', () => {
    expect(escapePointerToken('~1')).toBe('~01');
    expect(escapePointerToken('/~')).toBe('~1~0');
    expect(escapePointerToken('~~//')).toBe('~0~0~1~1');
    expect(escapePointerToken('plain')).toBe('plain');
  });

  it('appends tokens to a path', () => {
    expect(pointerAppend('', 'a')).toBe('/a');
    expect(pointerAppend('/a', 3)).toBe('/a/3');
    expect(pointerAppend('/a', 'b/c~d')).toBe('/a/b~1c~0d');
    expect(pointerAppend('/', '')).toBe('//');
  });

  it('checks its inputs', () => {
    expect(() => pointerAppend('a', 'b')).toThrow(RangeError);
    expect(() => pointerAppend(1 as unknown as string, 'b')).toThrow(TypeError);
    expect(() => escapePointerToken(-1)).toThrow(RangeError);
    expect(() => escapePointerToken(1.5)).toThrow(RangeError);
    expect(() => escapePointerToken(NaN)).toThrow(RangeError);
    expect(() => escapePointerToken(null as unknown as string)).toThrow(TypeError);
    expect(() => pointerFromTokens('ab' as unknown as string[])).toThrow(TypeError);
  });
});
