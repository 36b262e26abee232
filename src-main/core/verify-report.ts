/**
 * One document in, its report out: what `evroom verify`, the HTTP service's verify routes and
 * the verification workers' report mode all answer.
 *
 * It lives in core (not in operations/verify.ts, which re-exports it as `verifyReport`) so that
 * a verification worker can run it without loading the ledger.
 */
import { looksLikeHtml, verifyReportHtml } from '../../src-shared/formats/report';
import type { VerifyContext } from '../../src-shared/verify/context';
import type { Report } from '../../src-shared/verify/report';
import { verifyDocument } from '../../src-shared/verify/verify';

/**
 * Verifies one document for its report alone (no identity hash).
 *
 * An HTML page is taken for an audit report's HTML form (PROTOCOL 12): its embedded signed JSON
 * is verified, and the page is checked to be exactly what that JSON renders to.
 *
 * @param bytes - The document exactly as received.
 * @param context - Keys, trust, secrets and the instant.
 * @returns The report; never throws because of the document.
 * @throws TypeError if `bytes` is not a Uint8Array.
 */
export function verifyReportBytes(bytes: Uint8Array, context: VerifyContext): Report {
  if (!(bytes instanceof Uint8Array)) throw new TypeError('verifyReportBytes expects a Uint8Array');
  if (mayBeHtml(bytes) && looksLikeHtml(new TextDecoder('utf-8').decode(bytes.subarray(0, 256)))) {
    // (Not fatal above: 256 bytes may end inside a character.)
    let text: string;
    try {
      text = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(bytes);
    } catch {
      return verifyDocument(bytes, context);
    }
    return verifyReportHtml(text, context);
  }
  return verifyDocument(bytes, context);
}

/**
 * Whether the document may be an HTML page: its first byte that is not ASCII white space is `<`,
 * or is not ASCII (a byte order mark, Unicode white space: looksLikeHtml judges those). A JSON
 * document starts with `{`; not decoding its head saves a TextDecoder per receipt when thousands
 * are verified.
 */
function mayBeHtml(bytes: Uint8Array): boolean {
  for (const byte of bytes) {
    if (byte === 0x3c || byte >= 0x80) return true;
    if (byte !== 0x20 && byte !== 0x09 && byte !== 0x0a && byte !== 0x0d && byte !== 0x0c && byte !== 0x0b)
      return false;
  }
  return false;
}
