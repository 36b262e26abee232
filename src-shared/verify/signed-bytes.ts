/**
 * The shape of one signed content shown in the receipt detail view, and how formats make one.
 *
 * Kept apart from signed-content.ts (the dispatcher over the registry), so that format folders
 * can build their entries without importing the registry they are listed in.
 */
import { hexEncode, utf8Encode } from '../crypto';
import type { CryptoProvider } from '../crypto/provider';

/** The bytes one signature covers. */
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

/**
 * A signed content given as text, with the SHA-256 of its UTF-8 bytes.
 *
 * @param crypto - For the SHA-256.
 * @param label - What the bytes are.
 * @param text - The bytes as text.
 * @param coverage - How the signature covers them.
 * @returns The entry.
 */
export function utf8SignedBytes(crypto: CryptoProvider, label: string, text: string, coverage: string): SignedBytes {
  return { label, text, encoding: 'utf8', sha256: hexEncode(crypto.sha256(utf8Encode(text))), coverage };
}
