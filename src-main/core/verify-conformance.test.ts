import { describe, expect, it } from 'vitest';
import { createPortableProvider } from '../../src-shared/crypto';
import { buildConformanceCases } from '../../src-shared/verify/conformance';
import { verifyDocument } from '../../src-shared/verify/verify';
import { createNodeCryptoProvider } from './node-crypto-provider';

// The verifiers run on OpenSSL in the main process and on noble in browsers: the same documents
// must get the same reports through both, including documents signed by the other provider.
const node = createNodeCryptoProvider();
const portable = createPortableProvider();
const cases = buildConformanceCases(node);

describe('format verifiers with the node:crypto provider', () => {
  it.each(cases.map((entry) => [entry.name, entry] as const))('%s', (_name, entry) => {
    const report = verifyDocument(entry.input, entry.ctx);
    expect(report.format).toBe(entry.expect.format);
    expect(report.status).toBe(entry.expect.status);
    expect(report.trust.status).toBe(entry.expect.trust);
    if (entry.expect.error !== undefined) {
      expect(report.errors.map((error) => error.code)).toContain(entry.expect.error.code);
    }
    if (entry.expect.innerStatus !== undefined) expect(report.inner?.status).toBe(entry.expect.innerStatus);
    if (entry.expect.claimedKeyId !== undefined) expect(report.trust.claimed_key_id).toBe(entry.expect.claimedKeyId);
  });

  it('gives reports identical to the portable provider on every case', () => {
    for (const entry of cases) {
      const viaNode = verifyDocument(entry.input, entry.ctx);
      const viaPortable = verifyDocument(entry.input, { ...entry.ctx, crypto: portable });
      expect(viaPortable, entry.name).toEqual(viaNode);
    }
  });

  it('signs the same documents as the portable provider (deterministic signers)', () => {
    const fromPortable = buildConformanceCases(portable);
    expect(fromPortable.map((entry) => entry.input)).toEqual(cases.map((entry) => entry.input));
  });
});
