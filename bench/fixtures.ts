/**
 * Documents the benches share (not a bench itself: bench/quick.ts skips this file).
 */
import { issueProfileReceipt } from '../src-shared/formats/profile';
import { createNodeCryptoProvider } from '../src-main/core/node-crypto-provider';

/**
 * A standard profile receipt signed by a fixed key, and the key file that checks it.
 *
 * @param keyId - The signing key's id.
 * @returns The receipt, `{keys: [...]}` with its public key, the provider and the seed.
 */
export function signedStandardReceipt(keyId: string): {
  receipt: ReturnType<typeof issueProfileReceipt>;
  keyFile: { keys: { key_id: string; algorithm: string; public_key: string }[] };
  crypto: ReturnType<typeof createNodeCryptoProvider>;
  seed: Uint8Array;
} {
  const crypto = createNodeCryptoProvider();
  const seed = new Uint8Array(32).fill(7);
  const receipt = issueProfileReceipt(
    'standard',
    {
      agent_did: 'did:web:agent.example.com',
      content: { sha256: 'a'.repeat(64), type: 'text/plain' },
      settlement_reference: { rail: 'stablecoin', chain_id: 8453, asset: 'USDC' },
      smsh: { sealed: false, declaration: 'No sealed evidence accompanies this receipt.' },
      hktn_context: { reputation_tier: 'new' },
    },
    seed,
    keyId,
    crypto,
    { now: new Date('2026-06-01T12:00:00.000Z') },
  );
  const keyFile = {
    keys: [
      {
        key_id: keyId,
        algorithm: 'Ed25519',
        public_key: Buffer.from(crypto.ed25519PublicKey(seed)).toString('base64url'),
      },
    ],
  };
  return { receipt, keyFile, crypto, seed };
}
