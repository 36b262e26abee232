import { describe, expect, it } from 'vitest';
import { createPortableProvider } from '../../crypto';
import { catalogueModules } from '../../verify/registry';
import { createSampleKit, type SampleSet } from '../../verify/sample-kit';
import { typedFormat as MODULE } from '.';
import { parseJsonTree } from '../../json';
import { typedFacts } from './facts';

const crypto = createPortableProvider();

/** Every sample up to and including this format's (sealed samples wrap classical ones). */
function samples(): SampleSet {
  const set: SampleSet = { files: [], keys: [], secrets: [] };
  const kit = createSampleKit(set, crypto);
  for (const module of catalogueModules()) {
    module.samples(kit);
    if (module === MODULE) break;
  }
  return set;
}

function sampleText(file: string): string {
  const found = samples().files.find((candidate) => candidate.file === file);
  if (found === undefined) throw new Error(`no sample ${file}`);
  return found.text;
}

describe('typedFacts', () => {
  it('reads what the valid sample says of itself, from its tree', () => {
    expect(typedFacts(parseJsonTree(sampleText('typed/valid.json')))).toEqual({
      receipt_id: 'dlg-2026-0001',
      issued_at: Date.parse('2026-01-01T09:00:00.000Z'),
      issuer_key_id: 'did:key:z6MkgAnvkP45uNxwCKeNdt6wrYkEjpYX4f7Nrd8MQqFL8Fbn',
    });
  });

  it('says nothing of a document of another shape', () => {
    expect(typedFacts(parseJsonTree('{"a":[1,2]}'))).toEqual({
      receipt_id: null,
      issued_at: null,
      issuer_key_id: null,
    });
  });
});
