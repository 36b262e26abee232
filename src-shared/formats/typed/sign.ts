/**
 * Typed contract signers: valid contracts, sigr links and delegation chains from seeds, for
 * tests, samples, the docs' worked example and the service's issuing side.
 */
import { b64uEncode, isHex64 } from '../../crypto';
import type { CryptoProvider } from '../../crypto/provider';
import { isJsonObject, type JsonObject } from '../../verify/fields';
import { isKeyId } from '../../verify/keys';
import { signRuleD1 } from '../../verify/signature';
import { TYPED_ALGORITHM, TYPED_SCHEMA_VERSION } from './contract-types';
import { typedContractSha256 } from './rules';
import type { DelegationBody } from './schema';
import { MAX_SIGR_LINKS, SIGR_GENESIS_PREV, sigrLinkMessage, sigrLinkSha256 } from './sigr';

/** A signing key: its key id and 32-byte Ed25519 secret seed. */
export interface TypedSigner {
  key_id: string;
  seed: Uint8Array;
}

/** The members of a typed contract its issuer chooses; the signer adds the rest. */
export interface TypedContractFields {
  contract_type: string;
  contract_id: string;
  issued_at: string;
  issuer: string;
  body: JsonObject;
  /** Default `r1.0.0`; set only to make deliberately wrong contracts in tests. */
  schema?: string;
  /** Default `Ed25519`; another value makes a contract verifiers report UNSUPPORTED. */
  algorithm?: string;
}

/** The members of a sigr link before it is signed. */
export interface SigrLinkFields {
  signer_key_id: string;
  prev_sha256: string;
  statement_sha256: string;
}

/** One link of a delegation chain to build: the contract's fields and who signs it. */
export interface DelegationLinkSpec {
  contract_id: string;
  issued_at: string;
  issuer: string;
  signer: TypedSigner;
  /** The body without parent_sha256 (the builder binds each link to its parent). */
  body: Omit<DelegationBody, 'parent_sha256'>;
}

/**
 * Sign a typed contract under Rule D1.
 *
 * Adds `schema` (r1.0.0), `key_id`, `algorithm` (Ed25519), `payload_sha256` and `sig_b64u`.
 * The fields are not validated beyond their types: tests sign contracts that break a rule on
 * purpose.
 *
 * @param fields - contract_type, contract_id, issued_at, issuer and body.
 * @param seed - The 32-byte Ed25519 secret seed.
 * @param keyId - The key id verifiers resolve the public key by.
 * @param crypto - The crypto provider.
 * @returns The signed contract (members in JCS order).
 * @throws TypeError if the fields are not an object with an object body, or `keyId` is not a key id.
 * @throws RangeError if the seed is not 32 bytes.
 * @example signTypedContract({ contract_type: 'proof.demand', contract_id: 'd-1', issued_at, issuer, body }, seed, keyId, crypto)
 */
export function signTypedContract(
  fields: TypedContractFields,
  seed: Uint8Array,
  keyId: string,
  crypto: CryptoProvider,
): JsonObject {
  if (typeof fields !== 'object' || fields === null || !isJsonObject(fields.body as JsonObject)) {
    throw new TypeError('signTypedContract needs fields with an object body');
  }
  if (typeof fields.contract_type !== 'string') throw new TypeError('contract_type must be a string');
  if (!isKeyId(keyId)) throw new TypeError(`Not a key id: ${String(keyId)}`);
  assertSeed(seed);
  const document: JsonObject = {
    contract_type: fields.contract_type,
    schema: fields.schema ?? TYPED_SCHEMA_VERSION,
    contract_id: fields.contract_id,
    issued_at: fields.issued_at,
    issuer: fields.issuer,
    key_id: keyId,
    algorithm: fields.algorithm ?? TYPED_ALGORITHM,
    body: fields.body,
  };
  return signRuleD1(document, seed, crypto);
}

/**
 * Sign one sigr link: Ed25519 over the 32 raw bytes of SHA-256(JCS(link without sig_b64u)).
 *
 * @param fields - signer_key_id, prev_sha256 and statement_sha256.
 * @param seed - The signer's 32-byte seed.
 * @param crypto - The crypto provider.
 * @returns The link with sig_b64u.
 * @throws TypeError if signer_key_id is not a key id.
 * @throws RangeError if a digest is not HEX64 or the seed is not 32 bytes.
 */
export function signSigrLink(fields: SigrLinkFields, seed: Uint8Array, crypto: CryptoProvider): JsonObject {
  if (typeof fields !== 'object' || fields === null) throw new TypeError('signSigrLink needs the link fields');
  if (!isKeyId(fields.signer_key_id)) throw new TypeError(`Not a key id: ${String(fields.signer_key_id)}`);
  if (!isHex64(fields.prev_sha256)) throw new RangeError('prev_sha256 must be 64 lowercase hex characters');
  if (!isHex64(fields.statement_sha256)) throw new RangeError('statement_sha256 must be 64 lowercase hex characters');
  assertSeed(seed);
  const link: JsonObject = {
    signer_key_id: fields.signer_key_id,
    prev_sha256: fields.prev_sha256,
    statement_sha256: fields.statement_sha256,
  };
  link['sig_b64u'] = b64uEncode(crypto.ed25519Sign(sigrLinkMessage(link, crypto), seed));
  return link;
}

/**
 * Build the links of a sigr.chain: link i signs statement i with signer i and chains to link i-1.
 *
 * @param statements - The statement digests (HEX64), first to last.
 * @param signers - One signer per statement.
 * @param crypto - The crypto provider.
 * @returns The signed links, ready for `body.links`.
 * @throws TypeError if the arguments are not arrays.
 * @throws RangeError if the counts differ, there are none or more than 256, or a digest is not HEX64.
 */
export function buildSigrChain(
  statements: readonly string[],
  signers: readonly TypedSigner[],
  crypto: CryptoProvider,
): JsonObject[] {
  if (!Array.isArray(statements) || !Array.isArray(signers))
    throw new TypeError('buildSigrChain needs arrays of statements and signers');
  if (statements.length !== signers.length)
    throw new RangeError(`${statements.length} statements but ${signers.length} signers`);
  if (statements.length < 1 || statements.length > MAX_SIGR_LINKS)
    throw new RangeError(`A sigr chain has 1 to ${MAX_SIGR_LINKS} links`);
  const links: JsonObject[] = [];
  let prev = SIGR_GENESIS_PREV;
  statements.forEach((statement, index) => {
    const signer = signers[index] as TypedSigner;
    const link = signSigrLink(
      { signer_key_id: signer.key_id, prev_sha256: prev, statement_sha256: statement },
      signer.seed,
      crypto,
    );
    links.push(link);
    prev = sigrLinkSha256(link, crypto);
  });
  return links;
}

/**
 * Build a signed delegation chain, each link bound to its parent by parent_sha256.
 *
 * @param links - The links from the root to the leaf.
 * @param crypto - The crypto provider.
 * @returns The leaf as `contract` and the others as `parents`, immediate parent first (the
 *   order {@link verifyTypedContract} takes).
 * @throws TypeError if `links` is not an array or a signer's key id is malformed.
 * @throws RangeError if `links` is empty or a seed is not 32 bytes.
 */
export function buildDelegationChain(
  links: readonly DelegationLinkSpec[],
  crypto: CryptoProvider,
): { contract: JsonObject; parents: JsonObject[] } {
  if (!Array.isArray(links)) throw new TypeError('buildDelegationChain needs an array of links');
  if (links.length === 0) throw new RangeError('A delegation chain has at least one link');
  const signed: JsonObject[] = [];
  for (const link of links) {
    const parent = signed.at(-1);
    const body: JsonObject = { ...link.body, scope: [...link.body.scope] };
    if (parent !== undefined) body['parent_sha256'] = typedContractSha256(parent, crypto);
    const fields = {
      contract_type: 'authority.delegation',
      contract_id: link.contract_id,
      issued_at: link.issued_at,
      issuer: link.issuer,
      body,
    };
    signed.push(signTypedContract(fields, link.signer.seed, link.signer.key_id, crypto));
  }
  const contract = signed.pop() as JsonObject;
  return { contract, parents: signed.reverse() };
}

function assertSeed(seed: Uint8Array): void {
  if (!(seed instanceof Uint8Array)) throw new TypeError('The seed must be a Uint8Array');
  if (seed.length !== 32) throw new RangeError(`The seed must be 32 bytes, got ${seed.length}`);
}
