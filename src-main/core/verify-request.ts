/**
 * The service's verify request, `POST /v1/receipt/verify` (PROTOCOL section 3): any supported
 * document, or `{document, keys?}`, answered with its report. Pure (bytes, keys and an instant
 * in, a report out), so the HTTP thread and a verification worker run the same code.
 *
 * The body is read with our strict parser: a duplicate member name is a MALFORMED report, never
 * a silent last-wins. Keys sent with the document check signatures; they never make trust
 * `trusted` (only pinned keys do). One key id names one key (PROTOCOL section 0): sent keys that
 * give a key_id of the trust store or of the service's listed keys another key are refused.
 */
import { parseJsonBytes } from '../../src-shared/json';
import type { JsonNode } from '../../src-shared/json/types';
import type { CryptoProvider } from '../../src-shared/crypto';
import { createVerifyContext, type KeyEntry } from '../../src-shared/verify/context';
import { checkKeySources, parseKeyFileTree } from '../../src-shared/verify/key-file';
import type { Report } from '../../src-shared/verify/report';
import { verifyParsed } from '../../src-shared/verify/verify';
import { verifyReportBytes } from './verify-report';

/** The keys a verify request is judged with, besides those it sends. */
export interface RequestKeys {
  /** The trust store's pinned and revoked keys. */
  pinned: readonly KeyEntry[];
  /** Keys that check signatures and confer no trust: the trust store's advertised keys and the service's listed keys. */
  advertised: readonly KeyEntry[];
  /** The service's listed keys (/v1/keys): a sent key may not give one of their ids another key. */
  listed: readonly KeyEntry[];
}

function member(node: JsonNode, name: string): JsonNode | undefined {
  return node.type === 'object' ? node.members.find(([key]) => key === name)?.[1] : undefined;
}

/**
 * A verify request's report: `{document, keys?}` is unwrapped (no format has a top-level
 * `document`), anything else is the document itself. The body is parsed once; the document is
 * verified from that tree, so its bytes, member order and number spellings are the ones sent.
 *
 * @param bytes - The request body.
 * @param crypto - The crypto provider.
 * @param keys - The trust store's keys and the service's listed keys.
 * @param now - The instant validity windows are judged at.
 * @returns The report; never throws because of the document.
 * @throws KeyFileError when `keys` is not a key file, or gives a key_id of the trust store or of
 *   the service's keys another key (its path points into `keys`, as sent)
 */
export function verifyRequestBytes(bytes: Uint8Array, crypto: CryptoProvider, keys: RequestKeys, now: Date): Report {
  const base = { pinned: keys.pinned, advertised: keys.advertised, secrets: [], now };
  let tree: JsonNode;
  try {
    tree = parseJsonBytes(bytes);
  } catch {
    // Not strict JSON: the verifier reports MALFORMED with the parser's code and offset.
    return verifyReportBytes(bytes, createVerifyContext(crypto, base));
  }
  const document = member(tree, 'document');
  if (
    document === undefined ||
    tree.type !== 'object' ||
    tree.members.some(([name]) => name !== 'document' && name !== 'keys')
  ) {
    return verifyParsed(tree, createVerifyContext(crypto, base));
  }
  const keysNode = member(tree, 'keys');
  const sent = keysNode === undefined ? [] : parseKeyFileTree(keysNode, { advertised: true });
  if (sent.length > 0) {
    // Each source is checked against the sent keys alone: a request is never refused for
    // something it did not send.
    const named = { name: 'the keys sent with the document', entries: sent };
    checkKeySources([{ name: "the service's trust store", entries: keys.pinned }, named]);
    checkKeySources([{ name: "the service's own keys (/v1/keys)", entries: keys.listed }, named]);
  }
  return verifyParsed(document, createVerifyContext(crypto, { ...base, advertised: [...keys.advertised, ...sent] }));
}
