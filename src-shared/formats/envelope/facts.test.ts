import { describe, expect, it } from 'vitest';
import { createPortableProvider } from '../../crypto';
import { catalogueModules } from '../../verify/registry';
import { createSampleKit, type SampleSet, SAMPLES_NOW } from '../../verify/sample-kit';
import { envelopeFormat as MODULE } from '.';
import { parseJsonTree } from '../../json';
import { envelopeFacts } from './facts';

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

describe('envelopeFacts', () => {
  it('reads what the valid sample says of itself, from its tree', () => {
    expect(envelopeFacts(parseJsonTree(sampleText('envelope/valid.json')))).toEqual({
      receipt_id: 'rcp_01KT1GW6G01R70W3GE1R70W3GE',
      issued_at: Date.parse(SAMPLES_NOW),
      issuer_key_id: 'did:svc:evroom:samples:service',
    });
  });

  it('says nothing of a document of another shape', () => {
    expect(envelopeFacts(parseJsonTree('{"a":[1,2]}'))).toEqual({
      receipt_id: null,
      issued_at: null,
      issuer_key_id: null,
    });
  });
});
