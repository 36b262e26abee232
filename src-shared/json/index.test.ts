import { describe, expect, it } from 'vitest';
import * as json from './index';

describe('src-shared/json public API', () => {
  it('exports the names other modules code against', () => {
    const functions = [
      'parseJsonTree',
      'parseJsonBytes',
      'parseJson',
      'toPlain',
      'fromPlain',
      'jcs',
      'jcsTree',
      'skp',
      'jcsNumber',
      'jcsString',
      'pointerAppend',
      'pointerFromTokens',
      'escapePointerToken',
      'formatJsonError',
    ];
    for (const name of functions) expect(typeof (json as Record<string, unknown>)[name]).toBe('function');
    expect(json.MAX_JSON_DEPTH).toBe(64);
    expect(new json.JsonParseError('bom', 'm', '', 0)).toBeInstanceOf(Error);
  });

  it('works end to end: parse, canonicalize, report', () => {
    const tree = json.parseJsonTree('{"amount":1.50,"id":"r-1"}');
    expect(json.skp(tree)).toBe('{"amount":1.50,"id":"r-1"}');
    expect(json.jcsTree(tree)).toBe('{"amount":1.5,"id":"r-1"}');
    expect(json.jcs(json.toPlain(tree))).toBe('{"amount":1.5,"id":"r-1"}');
    try {
      json.parseJson('{"a":1,"a":2}');
      expect.unreachable();
    } catch (error) {
      expect(error).toBeInstanceOf(json.JsonParseError);
      expect(json.formatJsonError(error as json.JsonParseError)).toContain('duplicate_name');
    }
  });
});
