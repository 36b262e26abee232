/**
 * sigr.chain links: what each link signs, how links chain, and the per-link checks.
 *
 * A link is `{signer_key_id, prev_sha256, statement_sha256, sig_b64u}`.
 * - Signed message: the 32 raw bytes of SHA-256(JCS(link without sig_b64u)), signed with
 *   Ed25519 by the key resolved for signer_key_id (pinned, did:key, advertised), as Rule D1 does
 *   for whole documents.
 * - Chaining: prev_sha256 of link 0 is 64 zeros; of link i it is the hex SHA-256 of JCS of the
 *   whole link i-1, its sig_b64u included. Including the signature means a later link commits
 *   to the earlier signature itself, so an earlier link cannot be re-signed (by anyone holding
 *   its key) without breaking every later prev_sha256.
 *
 * Each link has two checks, `link[<i>].prev` (a broken chain is MISMATCH) and
 * `link[<i>].signature` (a bad signature is INVALID, an unresolvable signer `unavailable`, so the
 * report is INDETERMINATE), with errors under `/body/links/<i>/`.
 */
import { hexEncode, utf8Encode } from '../../crypto';
import type { CryptoProvider } from '../../crypto/provider';
import { jcs } from '../../json';
import { decodeB64uField, isJsonObject, problem, type JsonObject } from '../../verify/fields';
import type { VerifyContext } from '../../verify/context';
import type { ReportBuilder } from '../../verify/report-builder';
import { checkKeyedSignature } from '../../verify/signature';
import type { SigrBody, SigrLink, TypedContract } from './schema';

/** prev_sha256 of the first link: 64 zeros. */
export const SIGR_GENESIS_PREV = '0'.repeat(64);

/** The most links a sigr.chain may hold (its schema's maxItems). */
export const MAX_SIGR_LINKS = 256;

/**
 * The check ids of a chain with `count` links, in report order.
 *
 * @param count - The number of links (capped at {@link MAX_SIGR_LINKS}).
 * @returns `link[0].prev`, `link[0].signature`, `link[1].prev`, ...
 */
export function sigrLinkCheckIds(count: number): string[] {
  const ids: string[] = [];
  const links = Number.isSafeInteger(count) ? Math.min(Math.max(count, 0), MAX_SIGR_LINKS) : 0;
  for (let index = 0; index < links; index += 1) ids.push(`link[${index}].prev`, `link[${index}].signature`);
  return ids;
}

/**
 * The message a link's signer signs: SHA-256(JCS(link without sig_b64u)), 32 raw bytes.
 *
 * @param link - The link, signed or not.
 * @param crypto - The provider's SHA-256.
 * @returns The 32-byte digest.
 * @throws TypeError if the link is not a JSON object.
 */
export function sigrLinkMessage(link: JsonObject, crypto: Pick<CryptoProvider, 'sha256'>): Uint8Array {
  if (!isJsonObject(link)) throw new TypeError('A sigr link must be a JSON object');
  const unsigned: JsonObject = {};
  for (const [name, member] of Object.entries(link)) {
    if (name === 'sig_b64u') continue;
    Object.defineProperty(unsigned, name, { value: member, writable: true, enumerable: true, configurable: true });
  }
  return crypto.sha256(utf8Encode(jcs(unsigned)));
}

/**
 * The hash the next link's prev_sha256 must carry: hex SHA-256(JCS(whole link)).
 *
 * @param link - The signed link, sig_b64u included.
 * @param crypto - The provider's SHA-256.
 * @returns 64 lowercase hex characters.
 * @throws TypeError if the link is not a JSON object.
 */
export function sigrLinkSha256(link: JsonObject, crypto: Pick<CryptoProvider, 'sha256'>): string {
  if (!isJsonObject(link)) throw new TypeError('A sigr link must be a JSON object');
  return hexEncode(crypto.sha256(utf8Encode(jcs(link))));
}

/**
 * Check every link of a sigr.chain contract: its prev_sha256 and its signature.
 *
 * @param builder - The report builder (its planned ids should include {@link sigrLinkCheckIds}).
 * @param contract - A sigr.chain contract that passed its schema.
 * @param ctx - The verification context.
 */
export function checkSigrLinks(builder: ReportBuilder, contract: TypedContract, ctx: VerifyContext): void {
  const links = (contract.body as unknown as SigrBody).links;
  let expectedPrev = SIGR_GENESIS_PREV;
  links.forEach((link: SigrLink, index) => {
    const path = `/body/links/${index}`;
    const prevId = `link[${index}].prev`;
    if (link.prev_sha256 === expectedPrev) {
      builder.pass(
        prevId,
        index === 0
          ? 'The first link starts the chain (prev_sha256 is 64 zeros).'
          : `prev_sha256 is the SHA-256 of link ${index - 1}.`,
      );
    } else {
      builder.fail(
        'MISMATCH',
        prevId,
        index === 0
          ? 'The first link must have prev_sha256 of 64 zeros.'
          : `prev_sha256 is not the SHA-256 of link ${index - 1}: the chain is broken here.`,
        problem('prev_mismatch', `${path}/prev_sha256`, `Expected prev_sha256 ${expectedPrev}.`),
      );
    }
    const linkObject = link as unknown as JsonObject;
    // The schema has checked the shape; decoding also refuses non-canonical base64url.
    const signature = decodeB64uField(link.sig_b64u, 64);
    if (signature === undefined) {
      builder.fail(
        'MALFORMED',
        `link[${index}].signature`,
        `Link ${index}'s signature is not 64 bytes of canonical base64url.`,
        problem('invalid_signature_encoding', `${path}/sig_b64u`, '"sig_b64u" must be 64 bytes as unpadded base64url.'),
      );
    } else {
      checkKeyedSignature(builder, ctx, {
        checkId: `link[${index}].signature`,
        keyId: link.signer_key_id,
        signature,
        message: sigrLinkMessage(linkObject, ctx.crypto),
        keyIdPath: `${path}/signer_key_id`,
        signaturePath: `${path}/sig_b64u`,
        label: `Link ${index}'s signature`,
      });
    }
    expectedPrev = sigrLinkSha256(linkObject, ctx.crypto);
  });
}
