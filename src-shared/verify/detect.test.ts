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
    ['HAHS, by its protocol', { protocol: 'hahs/1' }, 'hahs'],
    ['another HAHS version', { protocol: 'hahs/2' }, 'hahs'],
    ['SMSH-Stamp, by its v', { v: 'smsh-stamp/1' }, 'smsh-stamp'],
    [
      'Spectral, by signature_algo beside its members',
      { signature_algo: 'ed25519', signature: '', public_key: '', signed_payload_sha256: '' },
      'spectral',
    ],
    ['signature_algo alone', { signature_algo: 'ed25519', signature: '' }, 'unknown'],
    ['a protocol that is not HAHS', { protocol: 'hive/1' }, 'unknown'],
    ['a SiGR chain receipt', { envelope: { object: 'sigr.chain.receipt' } }, 'sigr-chain-pq'],
    [
      'a SiGR chain receipt beside fragments',
      { envelope: { object: 'sigr.chain.receipt' }, fragments: [] },
      'sigr-chain-pq',
    ],
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
    // The ecosystem's formats name themselves by a member's value, so they come before the
    // formats recognized by member names alone.
    expect(detectFormat(fromPlain({ protocol: 'hahs/1', signed_payload: {}, signature: '' }))).toBe('hahs');
    expect(detectFormat(fromPlain({ protocol: 'hahs/1', receipt_id: 'r_ppr.wearable_1' }))).toBe('hahs');
    expect(
      detectFormat(
        fromPlain({
          signed_payload: {},
          signature: '',
          public_key: '',
          signed_payload_sha256: '',
          signature_algo: 'x',
        }),
      ),
    ).toBe('spectral');
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
      'hahs',
      'smsh-stamp',
      'spectral',
      'wearable/r2.0.0',
      'countersigner',
      'classical',
      'envelope/svc-receipt-v1',
      'profile',
      'sigr-chain-pq',
      'typed-pq',
      'typed',
      'report',
    ]);
  });
});
