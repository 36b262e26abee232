import { describe, expect, it } from 'vitest';
import { createPortableProvider, hexDecode, hexEncode, utf8Encode } from '../../crypto';
import type { JsonObject } from '../../verify/fields';
import { sigrSuite } from './chain';
import { sigrChainExampleRun } from './example';
import { signSigrChain } from './sign';
import { sigrChainSignedContent } from './signed-content';

const crypto = createPortableProvider();
const key = crypto.mldsa65KeyGen(new Uint8Array(32).fill(0x65));

function content(document: JsonObject): ReturnType<typeof sigrChainSignedContent> {
  return sigrChainSignedContent({ format: 'sigr-chain-pq', tree: undefined as never, value: document, crypto });
}

describe('sigrChainSignedContent', () => {
  it('shows the base, the bound bytes whose hash is signed, and each step record', () => {
    for (const hashSuite of ['sha-256', 'sha-384'] as const) {
      const suite = sigrSuite(hashSuite, crypto);
      if (suite === undefined) throw new Error('suite missing');
      const document = signSigrChain(sigrChainExampleRun(suite), key.secretKey, key.publicKey, crypto, {
        issuedAt: '2026-06-01T12:00:00.000Z',
        hashSuite,
      });
      const envelope = document['envelope'] as JsonObject;
      const entries = content(document);
      expect(entries).toHaveLength(2 + 5);
      const [base, bound] = entries;
      expect(base?.text.startsWith('{"agent_ref":"research-agent-v2","causal_root":')).toBe(true);
      expect(bound?.encoding).toBe('hex');
      expect(bound?.text).toBe(hexEncode(suite.hash(utf8Encode(base?.text ?? ''))) + String(envelope['causal_root']));
      expect(hexEncode(suite.hash(hexDecode(bound?.text ?? '')))).toBe(envelope['payload_digest']);
      for (const entry of entries) expect(entry.sha256).toMatch(/^[0-9a-f]{64}$/);
    }
  });

  it('is the same whatever the order of steps, and nothing without an envelope or a known suite', () => {
    const suite = sigrSuite('sha-256', crypto);
    if (suite === undefined) throw new Error('suite missing');
    const document = signSigrChain(sigrChainExampleRun(suite), key.secretKey, key.publicKey, crypto, {
      issuedAt: '2026-06-01T12:00:00.000Z',
    });
    const reordered = JSON.parse(JSON.stringify(document)) as { envelope: { steps: unknown[] } };
    reordered.envelope.steps.reverse();
    expect(content(reordered as unknown as JsonObject)).toEqual(content(document));
    expect(content({})).toEqual([]);
    expect(content({ envelope: { hash_suite: 'sha3-256', steps: [] } })).toEqual([]);
  });
});
