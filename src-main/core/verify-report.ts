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
import { singleErrorReport } from '../../src-shared/verify/report-builder';
import { verifyDocument } from '../../src-shared/verify/verify';
import { looksLikePdf, PdfAttachmentError, pdfAttachments } from './pdf-attachment';
import { MAX_DOCUMENT_BYTES } from './read-document';

/**
 * Verifies one document for its report alone (no identity hash).
 *
 * An HTML page is taken for an audit report's HTML form (PROTOCOL 12): its embedded signed JSON
 * is verified, and the page is checked to be exactly what that JSON renders to. A PDF is taken
 * for an audit report's PDF form: the signed JSON it carries as an attached file is verified
 * (see {@link verifyReportPdf}).
 *
 * @param bytes - The document exactly as received.
 * @param context - Keys, trust, secrets and the instant.
 * @returns The report; never throws because of the document.
 * @throws TypeError if `bytes` is not a Uint8Array.
 */
export function verifyReportBytes(bytes: Uint8Array, context: VerifyContext): Report {
  if (!(bytes instanceof Uint8Array)) throw new TypeError('verifyReportBytes expects a Uint8Array');
  if (looksLikePdf(bytes)) return verifyReportPdf(bytes, context);
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

/** The id of the check a PDF's report carries first: whether it has a signed report attached. */
export const PDF_ATTACHMENT_CHECK = 'pdf_attachment';

/**
 * Verifies the signed report a PDF carries as an attached file (an audit report's PDF form).
 *
 * The PDF must attach exactly one `.json` file, and that file must be an audit report: it is
 * verified as `evroom verify report.json` would (Rule D1, counts, snapshot hash). The check
 * `pdf_attachment` comes first; a note says what is not checked: that the pages show that report
 * (their footer carries its payload_sha256, to compare by eye).
 *
 * @param bytes - The PDF.
 * @param context - Keys, trust, secrets and the instant.
 * @returns A report of format `report`; MALFORMED when the PDF carries no signed report or
 *   cannot be read, saying why.
 */
export function verifyReportPdf(bytes: Uint8Array, context: VerifyContext): Report {
  const malformed = (code: string, message: string): Report =>
    singleErrorReport('report', 'MALFORMED', PDF_ATTACHMENT_CHECK, { code, path: '', message });
  let files;
  try {
    files = pdfAttachments(bytes, { maxFileBytes: MAX_DOCUMENT_BYTES });
  } catch (error) {
    if (!(error instanceof PdfAttachmentError)) throw error;
    return malformed('pdf_unreadable', `The PDF cannot be read for an attached report: ${error.message}`);
  }
  const json = files.filter((file) => file.name.toLowerCase().endsWith('.json'));
  if (json.length === 0)
    return malformed(
      'embedded_report_missing',
      `The PDF has no embedded signed report: it attaches ${files.length === 0 ? 'no file' : `no .json file (only ${files.map((file) => file.name).join(', ')})`}.`,
    );
  if (json.length > 1)
    return malformed(
      'embedded_report_ambiguous',
      `The PDF attaches more than one .json file (${json.map((file) => file.name).join(', ')}): which one is the report is not known.`,
    );
  const [file] = json as [(typeof json)[number]];
  const report = verifyDocument(file.data, context);
  if (report.format !== 'report')
    return malformed(
      'embedded_report_missing',
      `The PDF has no embedded signed report: its attached file ${file.name} is not an audit report (${report.status}).`,
    );
  report.checks.unshift({
    id: PDF_ATTACHMENT_CHECK,
    status: 'pass',
    detail: `The PDF carries a signed report as the attached file ${file.name}.`,
  });
  report.notes.push(
    'The PDF’s pages are not compared with the attached report: check that their footer’s payload_sha256 is the one verified here.',
  );
  return report;
}
