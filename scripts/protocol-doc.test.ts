import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { workedExamples } from './worked-examples';

// docs/protocol.md quotes a worked example per format. Recompute each and check the page
// still prints the same canonical texts and hashes (long texts are checked through their hash).
const doc = readFileSync(new URL('../docs/protocol.md', import.meta.url), 'utf8');
const LONGEST_QUOTED = 600;

describe('docs/protocol.md worked examples', () => {
  const examples = workedExamples();

  it('covers every format family', () => {
    expect(examples.map((example) => example.format)).toEqual([
      'classical',
      'countersigner',
      'sealed',
      'envelope/svc-receipt-v1',
      'wearable/r2.0.0',
      'profile/nano',
      'profile/standard',
      'profile/pq',
      'typed/authority.delegation',
      'typed-pq',
      'hahs',
      'smsh-stamp',
      'spectral',
      'spectral',
      'sigr-chain-pq',
    ]);
  });

  it.each(examples.map((example) => [example.format, example] as const))(
    'quotes the values of %s',
    (_format, example) => {
      for (const { label, value } of example.values) {
        if (value.length > LONGEST_QUOTED && !/^[0-9a-f]{64}$/.test(value)) continue;
        expect(doc, `${example.format}: ${label}`).toContain(value);
      }
    },
  );
});
