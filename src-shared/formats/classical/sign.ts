/**
 * Classical receipt signer: makes valid documents from a seed, for tests, samples and benchmarks.
 */
import { hexEncode, utf8Encode } from '../../crypto';
import type { CryptoProvider } from '../../crypto/provider';
import { fromPlain, parseJsonTree, skp } from '../../json';
import type { JsonNode, JsonValue } from '../../json/types';
import { memberNode } from '../../verify/fields';

/** Options for {@link signClassical}. */
export interface ClassicalSignOptions {
  /** Include `raw_payload` (the exact signed text). Default true. */
  rawPayload?: boolean;
  /** Copy `signed_payload.sequence` to a top-level `sequence` when present. Default true. */
  sequence?: boolean;
  /** Include `"alg": "Ed25519"`. Default true. */
  alg?: boolean;
}

/**
 * Sign a payload as a classical receipt.
 *
 * The payload may be given as JSON text to keep number spellings (`1.50` is signed and written
 * as `1.50`); plain values are written as JavaScript prints numbers.
 *
 * @param payload - The signed payload: a plain object, or JSON text of an object.
 * @param seed - The 32-byte Ed25519 secret seed.
 * @param crypto - The crypto provider.
 * @param options - Which optional members to write.
 * @returns The receipt as JSON text (SKP member order, lexemes preserved).
 * @throws TypeError if the payload is not an object (or JSON text of one).
 * @throws RangeError if the seed is not 32 bytes.
 * @example signClassical({ sequence: 1, amount: 5 }, seed, createPortableProvider())
 */
export function signClassical(
  payload: { [name: string]: JsonValue } | string,
  seed: Uint8Array,
  crypto: CryptoProvider,
  options: ClassicalSignOptions = {},
): string {
  const node: JsonNode = typeof payload === 'string' ? parseJsonTree(payload) : fromPlain(payload);
  if (node.type !== 'object') throw new TypeError('A classical signed_payload must be a JSON object');
  const message = skp(node);
  const signature = crypto.ed25519Sign(utf8Encode(message), seed);
  const members: string[] = [];
  if (options.alg ?? true) members.push(`"alg":"Ed25519"`);
  members.push(`"public_key_hex":"${hexEncode(crypto.ed25519PublicKey(seed))}"`);
  if (options.rawPayload ?? true) members.push(`"raw_payload":${JSON.stringify(message)}`);
  const sequence = memberNode(node, 'sequence');
  if ((options.sequence ?? true) && sequence !== undefined) members.push(`"sequence":${skp(sequence)}`);
  members.push(`"signature":"${hexEncode(signature)}"`);
  members.push(`"signed_payload":${message}`);
  return `{${members.join(',')}}`;
}
