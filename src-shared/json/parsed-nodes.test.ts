import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { jcsTree, skp } from './jcs';
import { parseJsonTree } from './parse';
import { JCS_FORM, SKP_FORM, canonicalSource } from './parsed-nodes';
import type { JsonNode } from './types';

/** The same tree as object literals: no remembered source, so the serializers write it. */
function literalCopy(node: JsonNode): JsonNode {
  if (node.type === 'object')
    return { type: 'object', members: node.members.map(([name, value]) => [name, literalCopy(value)] as const) };
  if (node.type === 'array') return { type: 'array', items: node.items.map(literalCopy) };
  return { ...node };
}

/** Every node of a tree, the root first. */
function allNodes(node: JsonNode): JsonNode[] {
  if (node.type === 'object') return [node, ...node.members.flatMap(([, value]) => allNodes(value))];
  if (node.type === 'array') return [node, ...node.items.flatMap(allNodes)];
  return [node];
}

/** Holds SKP and JCS of every node of the parsed text equal to writing them out. */
function serializesAsWritten(text: string): void {
  for (const node of allNodes(parseJsonTree(text))) {
    const written = literalCopy(node);
    expect(skp(node)).toBe(skp(written));
    expect(jcsTree(node)).toBe(jcsTree(written));
  }
}

/** JSON texts written with random choices: member order, whitespace, escapes, number spellings. */
const anyText: fc.Arbitrary<string> = fc.letrec<{ value: string }>((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc.constantFrom('null', 'true', 'false'),
    fc.constantFrom(
      '0',
      '-0',
      '5',
      '-12',
      '1.50',
      '1.5',
      '1e3',
      '1E+2',
      '0.000001',
      '123456789012345',
      '1234567890123456',
      '12345678901234567890',
      '-0.0',
    ),
    fc
      .tuple(fc.string({ unit: 'grapheme', maxLength: 6 }), fc.boolean())
      .map(([value, escaped]) => stringLiteral(value, escaped)),
    fc
      .tuple(fc.array(tie('value'), { maxLength: 4 }), fc.constantFrom('', ' ', '\n'))
      .map(([items, space]) => `[${space}${items.join(`,${space}`)}]`),
    fc
      .tuple(
        fc.uniqueArray(
          fc.tuple(fc.constantFrom('a', 'b', 'B', 'é', '\u{1f600}', 'aa', '', 'z', '"q"', 'line\n'), tie('value')),
          {
            selector: ([name]) => name,
            maxLength: 5,
          },
        ),
        fc.constantFrom('sorted', 'as generated', 'reversed'),
        fc.constantFrom('', ' ', '\t'),
        fc.boolean(),
      )
      .map(([members, order, space, escaped]) => {
        const listed =
          order === 'sorted'
            ? [...members].sort(([a], [b]) => (a < b ? -1 : 1))
            : order === 'reversed'
              ? [...members].reverse()
              : members;
        return `{${listed.map(([name, value]) => `${stringLiteral(name, escaped)}:${space}${value}`).join(',')}}`;
      }),
  ),
})).value;

/** A JSON string literal, with its non-ASCII characters escaped when `escaped` is set. */
function stringLiteral(value: string, escaped: boolean): string {
  const literal = JSON.stringify(value);
  return escaped
    ? literal.replace(/[^\x20-\x7e]/g, (character) => `\\u${character.charCodeAt(0).toString(16).padStart(4, '0')}`)
    : literal;
}

describe('canonical source of parsed containers', () => {
  it('is exactly what SKP and JCS write, for every node of arbitrary texts', () => {
    fc.assert(fc.property(anyText, serializesAsWritten), { numRuns: 3000 });
  });

  it('is used for canonical texts, JSON.stringify output and fc.json() alike', () => {
    fc.assert(
      fc.property(fc.json({ maxDepth: 6 }), fc.jsonValue({ maxDepth: 6 }), (text, value) => {
        serializesAsWritten(text);
        serializesAsWritten(JSON.stringify(value));
        serializesAsWritten(jcsTree(parseJsonTree(JSON.stringify(value))));
      }),
      { numRuns: 1000 },
    );
  });

  it('is remembered for canonical text only, and for JCS only when the numbers are JCS spellings too', () => {
    const form = (text: string): string => {
      const node = parseJsonTree(text);
      if (canonicalSource(node, JCS_FORM) !== undefined) return 'jcs';
      return canonicalSource(node, SKP_FORM) !== undefined ? 'skp' : 'none';
    };
    expect(form('{"a":1,"b":[true,null,"x"]}')).toBe('jcs');
    expect(form('{}')).toBe('jcs');
    expect(form('[]')).toBe('jcs');
    expect(form('{"a":1.50}')).toBe('skp');
    expect(form('[1e3]')).toBe('skp');
    expect(form('[-0]')).toBe('skp');
    expect(form('[1234567890123456]')).toBe('skp');
    expect(form('[123456789012345]')).toBe('jcs');
    expect(form('{"b":1,"a":2}')).toBe('none');
    expect(form('{"a":1, "b":2}')).toBe('none');
    expect(form('[ 1]')).toBe('none');
    expect(form('[1 ]')).toBe('none');
    expect(form('["\\u0041"]')).toBe('none');
    expect(form('{"\\"":1}')).toBe('none');
    // UTF-16 order: U+1F600 (a surrogate pair, D83D...) sorts before U+FF5E.
    expect(form('{"\u{1f600}":1,"\uff5e":2}')).toBe('jcs');
    expect(form('{"\uff5e":2,"\u{1f600}":1}')).toBe('none');
    // Whitespace around the root is not inside it.
    expect(form(' {"a":1}\n')).toBe('jcs');
    // A canonical child keeps its source inside a parent that has none.
    const parent = parseJsonTree('{"b": {"a":[1]}, "a":0}');
    expect(canonicalSource(parent, SKP_FORM)).toBeUndefined();
    const child = parent.type === 'object' ? parent.members[0]![1] : parent;
    expect(canonicalSource(child, JCS_FORM)).toBe('{"a":[1]}');
  });

  it('is never claimed for trees written as literals, and parsed trees still equal them', () => {
    const text = '{"a":[1,{"b":null}]}';
    const parsed = parseJsonTree(text);
    const literal = literalCopy(parsed);
    expect(canonicalSource(literal, SKP_FORM)).toBeUndefined();
    expect(canonicalSource(parsed, SKP_FORM)).toBe(text);
    expect(parsed).toEqual(literal);
    expect(canonicalSource({ type: 'string', value: '{}' }, SKP_FORM)).toBeUndefined();
  });
});
