/**
 * The exact bytes each signature of a document covers, for auditors to see and recompute.
 *
 * The receipt detail view shows, for every signature, the canonical bytes it was made over and
 * their SHA-256. This is derived from the document alone with each format's own canonical-form
 * function, so what is shown is what the verifier checked. Malformed documents show nothing.
 */
import { hexDecode, hexEncode, utf8Encode } from '../crypto';
import type { CryptoProvider } from '../crypto/provider';
import { jcs, parseJsonBytes, skp, toPlain } from '../json';
import type { JsonNode, JsonValue } from '../json/types';
import { withoutSignatures } from '../formats/envelope/verify';
import { profileSigningText } from '../formats/profile/verify';
import { canonicalObservation } from '../formats/wearable/canonical';
import type { WearableObservation } from '../formats/wearable/fields';
import { fragmentDigest } from '../formats/typed-pq/verify';
import { isJsonObject, type JsonObject } from './fields';
import { ruleD1Payload } from './signature';

export interface SignedBytes {
  /** What these bytes are. */
  label: string;
  /** The bytes as UTF-8 text, or as hex for binary content. */
  text: string;
  encoding: 'utf8' | 'hex';
  /** hex SHA-256 of the bytes. */
  sha256: string;
  /** How the signature covers them. */
  coverage: string;
}

function utf8Content(crypto: CryptoProvider, label: string, text: string, coverage: string): SignedBytes {
  return { label, text, encoding: 'utf8', sha256: hexEncode(crypto.sha256(utf8Encode(text))), coverage };
}

function memberNode(tree: JsonNode, name: string): JsonNode | undefined {
  return tree.type === 'object' ? tree.members.find(([member]) => member === name)?.[1] : undefined;
}

/**
 * The signed content of a document of a given format.
 *
 * @param format - The report's format (e.g. `classical`, `typed/proof.demand`).
 * @param raw - The document's bytes as received.
 * @param crypto - For the SHA-256 shown beside each content.
 * @returns One entry per signed content; empty when the format signs nothing readable (sealed)
 *   or the document does not have the shape its canonical form needs.
 */
export function signedContent(format: string, raw: Uint8Array, crypto: CryptoProvider): SignedBytes[] {
  let tree: JsonNode;
  let value: JsonValue;
  try {
    tree = parseJsonBytes(raw);
    value = toPlain(tree);
  } catch {
    return [];
  }
  if (!isJsonObject(value)) return [];
  try {
    return contentFor(format, tree, value, crypto);
  } catch {
    // A document too broken for its canonical form has no signed content to show.
    return [];
  }
}

function contentFor(format: string, tree: JsonNode, value: JsonObject, crypto: CryptoProvider): SignedBytes[] {
  if (format === 'classical') {
    const payload = memberNode(tree, 'signed_payload');
    return payload ? [utf8Content(crypto, 'SKP(signed_payload)', skp(payload), 'Ed25519 signature over these bytes (public_key_hex)')] : [];
  }
  if (format === 'countersigner') {
    const canonical = value['signed_over_canonical'];
    return typeof canonical === 'string'
      ? [utf8Content(crypto, 'signed_over_canonical', canonical, 'Ed25519 countersignature over these bytes; signed_over is their BLAKE3')]
      : [];
  }
  if (format === 'envelope/svc-receipt-v1') {
    return [utf8Content(crypto, 'JCS(envelope without signatures)', jcs(withoutSignatures(value)), 'each role: Ed25519 over the SHA-256 of these bytes')];
  }
  if (format === 'wearable/r2.0.0') {
    const body = value['signed_body'];
    const out: SignedBytes[] = [];
    if (isJsonObject(body)) {
      out.push(utf8Content(crypto, 'Canonical observation message M', canonicalObservation(body as unknown as WearableObservation), 'device_signature: Ed25519 over these bytes; observation_sha256 is their SHA-256'));
    }
    out.push(utf8Content(crypto, 'Rule D1 payload P', ruleD1Payload(value), 'sig_b64u: Ed25519 over the SHA-256 of these bytes; payload_sha256 is that SHA-256'));
    return out;
  }
  if (format.startsWith('typed/')) {
    return [utf8Content(crypto, 'Rule D1 payload P', ruleD1Payload(value), 'sig_b64u: Ed25519 over the SHA-256 of these bytes; payload_sha256 is that SHA-256')];
  }
  if (format.startsWith('profile/') || format === 'legacy/proof_tier') {
    return [utf8Content(crypto, 'JCS(receipt without receipt.sig_b64u)', profileSigningText(value), 'receipt.sig_b64u: Ed25519 over the SHA-256 of these bytes')];
  }
  if (format === 'typed-pq') {
    const fragments = value['fragments'];
    if (!Array.isArray(fragments)) return [];
    const digests = fragments.map((fragment) => hexEncode(fragmentDigest(fragment, crypto.sha256)));
    const text = digests.join('');
    return [
      {
        label: 'h_1 ‖ … ‖ h_n (SHA-256 of JCS of each fragment)',
        text,
        encoding: 'hex',
        sha256: hexEncode(crypto.sha256(hexDecode(text))),
        coverage: 'ML-DSA-65 signature over the 32 raw bytes of the SHA-256 of these bytes (the envelope digest)',
      },
    ];
  }
  return [];
}

