/**
 * Human-readable rendering of a verification Report for the terminal.
 *
 * Status and trust are printed on separate lines and never merged: a PASS from an unpinned key
 * reads "cryptographically valid, issuer unknown". Every check carries a symbol and a word so
 * the output does not depend on colour.
 */
import type { CheckStatus, Report, ReportStatus, TrustStatus } from '../../src-shared/verify/report';
import { paint, type Colour } from './terminal';

const CHECK_STYLE: Record<CheckStatus, { symbol: string; colour: Colour }> = {
  pass: { symbol: '✓', colour: 'green' },
  fail: { symbol: '✗', colour: 'red' },
  unavailable: { symbol: '?', colour: 'yellow' },
  unchecked: { symbol: '-', colour: 'yellow' },
  unsupported: { symbol: '!', colour: 'magenta' },
};

const STATUS_COLOUR: Record<ReportStatus, Colour> = {
  PASS: 'green',
  INDETERMINATE: 'yellow',
  INVALID: 'red',
  MISMATCH: 'red',
  AUTH_FAILED: 'red',
  UNSUPPORTED: 'magenta',
  MALFORMED: 'red',
};

const TRUST_TEXT: Record<TrustStatus, string> = {
  trusted: 'trusted (pinned key, inside its validity window)',
  unpinned: 'unpinned (issuer unknown: the key is not in your trust store)',
  revoked: 'revoked (the pinned key was revoked)',
  expired: 'expired (outside the pinned key’s validity window)',
  unattributed: 'unattributed (the key named did not sign what is here)',
  not_applicable: 'not applicable (nothing was signed)',
};

/** One-line meaning of each status, shown beside it. */
export const STATUS_MEANING: Record<ReportStatus, string> = {
  PASS: 'every check that ran passed',
  INDETERMINATE: 'a needed key or input is unavailable',
  INVALID: 'a signature does not verify',
  MISMATCH: 'the document disagrees with itself (altered after signing?)',
  AUTH_FAILED: 'the sealed document could not be decrypted with the given key',
  UNSUPPORTED: 'uses an algorithm or mode this verifier does not execute',
  MALFORMED: 'not a well-formed document of a known format',
};

/**
 * Renders one report as an indented block.
 *
 * @param input the path or label the report is for
 * @param color whether to use ANSI colours
 */
export function formatReportHuman(report: Report, input: string, color: boolean, indent = ''): string {
  const lines: string[] = [];
  const status = paint(color, STATUS_COLOUR[report.status], paint(color, 'bold', report.status));
  if (indent === '') lines.push(paint(color, 'bold', input));
  // A PDF is checked through the signed report it carries: say first whether it carries one.
  const attachment = report.checks.find((check) => check.id === 'pdf_attachment');
  if (attachment !== undefined) {
    const missing = report.errors.some((error) => error.code === 'embedded_report_missing');
    lines.push(
      `${indent}  ${
        attachment.status === 'pass'
          ? `PDF carries a signed report: ${status}`
          : missing
            ? paint(color, 'red', 'PDF has no embedded signed report')
            : paint(color, 'red', 'PDF cannot be read for an embedded signed report')
      }`,
    );
  }
  lines.push(`${indent}  status   ${status}  ${paint(color, 'dim', STATUS_MEANING[report.status])}`);
  lines.push(`${indent}  format   ${report.format}`);
  const trustParts =
    report.trust.status === 'unattributed'
      ? [
          report.trust.claimed_key_id === undefined
            ? 'unattributed: the document names a key, but that key did not sign what is here'
            : `unattributed: the document names ${report.trust.claimed_key_id}, but that key did not sign what is here`,
        ]
      : [TRUST_TEXT[report.trust.status]];
  if (report.trust.key_id) trustParts.push(`key ${report.trust.key_id}`);
  if (report.trust.label) trustParts.push(`“${report.trust.label}”`);
  // The fingerprint to read aloud to the sender (docs/protocol.md, "Key fingerprints").
  if (report.trust.key_fingerprint) trustParts.push(`fingerprint ${report.trust.key_fingerprint}`);
  lines.push(`${indent}  trust    ${trustParts.join('; ')}`);
  if (report.trust.detail && report.trust.status !== 'unattributed')
    lines.push(`${indent}           ${paint(color, 'dim', report.trust.detail)}`);
  if (report.checks.length > 0) {
    lines.push(`${indent}  checks`);
    const width = Math.max(...report.checks.map((check) => check.id.length));
    for (const check of report.checks) {
      const style = CHECK_STYLE[check.status];
      const mark = paint(color, style.colour, `${style.symbol} ${check.status.padEnd(11)}`);
      const detail = check.detail ? `  ${check.detail}` : '';
      lines.push(`${indent}    ${mark} ${check.id.padEnd(width)}${detail}`);
    }
  }
  if (report.errors.length > 0) {
    lines.push(`${indent}  errors`);
    for (const error of report.errors) {
      const where = error.path === '' ? '(document)' : error.path;
      lines.push(`${indent}    ${paint(color, 'red', error.code)} at ${where}: ${error.message}`);
    }
  }
  if (report.notes.length > 0) {
    lines.push(`${indent}  notes`);
    for (const note of report.notes) lines.push(`${indent}    - ${note}`);
  }
  const inner = (report as Report & { inner?: Report }).inner;
  if (inner) {
    lines.push(`${indent}  sealed content`);
    lines.push(formatReportHuman(inner, input, color, `${indent}    `));
  }
  return lines.join('\n');
}
