import { fromPlain } from '../json';
import { describe, expect, it } from 'vitest';
import type { JsonValue } from '../json/types';
import { detectFormat, detectModule, knownFormatNames } from './detect';
import { objectMember } from './fields';
import type { FormatModule } from './format-module';
import { formatModules } from './registry';

describe('detectFormat', () => {
  it.each<[string, JsonValue, string]>([
    ['classical', { signed_payload: {}, signature: '', public_key_hex: '' }, 'classical'],
    ['classical without its key', { signed_payload: {}, signature: '' }, 'classical'],
    ['countersigner', { signed_over: { leaf: '' }, countersignature: '' }, 'countersigner'],
    ['a digest signed_over is not a countersigner record', { signed_over: '', countersignature: '' }, 'unknown'],
    ['sealed', { sealed: true, enc: 'A256GCM' }, 'sealed'],
    ['envelope', { v: 'svc-receipt-v1' }, 'envelope/svc-receipt-v1'],
    ['sealed: false is not sealed', { sealed: false, enc: 'A256GCM' }, 'unknown'],
    ['another envelope version', { v: 'svc-receipt-v2' }, 'unknown'],
    ['an array', [{ v: 'svc-receipt-v1' }], 'unknown'],
    ['null', null, 'unknown'],
    ['a string', 'classical', 'unknown'],
    ['an empty object', {}, 'unknown'],
  ])('%s', (_name, value, format) => {
    expect(detectFormat(fromPlain(value))).toBe(format);
  });

  it('asks rows in order: a sealed wrapper wins over what it sits beside', () => {
    expect(detectFormat(fromPlain({ sealed: true, enc: 'A256GCM', signed_payload: {}, signature: '' }))).toBe('sealed');
    expect(
      detectFormat(fromPlain({ signed_over: { leaf: '' }, countersignature: '', signed_payload: {}, signature: '' })),
    ).toBe('countersigner');
  });

  it('uses the table it is given, so a new format is one row', () => {
    const notCalled = (): never => {
      throw new Error('not called');
    };
    const row: FormatModule = {
      name: 'example',
      owns: (format) => format === 'anchor',
      detect: (node) => (objectMember(node, 'example') !== undefined ? 'anchor' : undefined),
      verify: notCalled,
      signedContent: notCalled,
      facts: notCalled,
      issuers: [],
      samples: notCalled,
    };
    expect(detectModule(fromPlain({ example: 1 }), [row, ...formatModules()])?.module).toBe(row);
    expect(detectModule(fromPlain({ example: 1 }))).toBeUndefined();
  });

  it('names the known formats', () => {
    expect(knownFormatNames()).toEqual([
      'sealed',
      'wearable/r2.0.0',
      'countersigner',
      'classical',
      'envelope/svc-receipt-v1',
      'profile',
      'typed-pq',
      'typed',
      'report',
    ]);
  });
});
