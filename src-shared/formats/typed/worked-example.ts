/**
 * The worked example of the docs: one authority.delegation contract made from fixed inputs.
 *
 * Ed25519 signatures are deterministic, so the same seed and fields always give the same
 * contract, payload and hash; the docs print them and a test pins the hash, so the docs cannot
 * drift from the code.
 */
import { didKeyFromEd25519, hexEncode, utf8Encode } from '../../crypto';
import type { CryptoProvider } from '../../crypto/provider';
import type { JsonObject } from '../../verify/fields';
import { ruleD1Payload } from '../../verify/signature';
import { signTypedContract } from './sign';

/** The worked example's secret seed: 32 bytes of 0x2a. Public knowledge; never use it for real. */
export const WORKED_EXAMPLE_SEED_HEX = '2a'.repeat(32);

/** Everything the docs show about the worked example. */
export interface TypedWorkedExample {
  /** The signing seed, hex (public: an example only). */
  seed_hex: string;
  /** The signer's key id: the did:key of the seed's public key, so it resolves offline. */
  key_id: string;
  /** The signed contract. */
  contract: JsonObject;
  /** Rule D1's P: JCS of the contract without payload_sha256 and sig_b64u. */
  payload: string;
  /** hex SHA-256 of P (equal to the contract's payload_sha256). */
  payload_sha256: string;
}

/**
 * Build the worked example: an authority.delegation from did:web:acme.example to
 * did:web:agent.example for two scopes over 2026, signed with the seed 0x2a...2a.
 *
 * @param crypto - The crypto provider.
 * @returns The contract, its payload P and payload_sha256.
 */
export function typedWorkedExample(crypto: CryptoProvider): TypedWorkedExample {
  if (typeof crypto !== 'object' || crypto === null) throw new TypeError('typedWorkedExample needs a CryptoProvider');
  const seed = new Uint8Array(32).fill(0x2a);
  const keyId = didKeyFromEd25519(crypto.ed25519PublicKey(seed));
  const contract = signTypedContract(
    {
      contract_type: 'authority.delegation',
      contract_id: 'dlg-2026-0001',
      issued_at: '2026-01-01T09:00:00.000Z',
      issuer: 'did:web:acme.example',
      body: {
        delegator: 'did:web:acme.example',
        delegate: 'did:web:agent.example',
        scope: ['receipts:issue', 'receipts:verify'],
        not_before: '2026-01-01T00:00:00.000Z',
        not_after: '2026-12-31T23:59:59.999Z',
      },
    },
    seed,
    keyId,
    crypto,
  );
  const payload = ruleD1Payload(contract);
  return {
    seed_hex: hexEncode(seed),
    key_id: keyId,
    contract,
    payload,
    payload_sha256: hexEncode(crypto.sha256(utf8Encode(payload))),
  };
}
