/**
 * Test support for the import's tests: the standard receipts their bundles carry.
 */
import { createHash } from 'node:crypto';
import { utf8Encode, type CryptoProvider } from '../../src-shared/crypto';
import { issueProfileReceipt } from '../../src-shared/formats/profile';

/**
 * A standard profile receipt as a bundle file: its id (the file's stem) and its bytes.
 *
 * @param index - Makes the content hash and the issuing second differ from one receipt to the next.
 */
export function standardReceiptFile(
  index: number,
  issuerSeed: Uint8Array,
  issuerKeyId: string,
  crypto: CryptoProvider,
): { stem: string; bytes: Uint8Array } {
  const receipt = issueProfileReceipt(
    'standard',
    {
      agent_did: 'did:web:agent.example.com',
      content: { sha256: createHash('sha256').update(`content ${index}`).digest('hex'), type: 'application/json' },
      smsh: { sealed: false, declaration: 'none' },
      hktn_context: { reputation_tier: 'gold' },
    },
    issuerSeed,
    issuerKeyId,
    crypto,
    { now: new Date(Date.UTC(2026, 10, 1, 12, 0, index)) },
  );
  return { stem: (receipt.receipt as { id: string }).id, bytes: utf8Encode(JSON.stringify(receipt)) };
}
