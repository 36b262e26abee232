/**
 * Verifying the HTML form of an audit report (PROTOCOL section 12).
 *
 * The page must embed exactly one signed report in `<script type="application/json"
 * id="evroom-report">`; that JSON is verified as a report (Rule D1, counts, snapshot hash), and
 * the page is rendered again from it and compared byte for byte, so a table edited by hand, an
 * added paragraph or a changed byte of the embedded JSON each make the page fail.
 */
import { JsonParseError, jcsTree, parseJsonTree, toPlain } from '../../json';
import type { JsonNode, JsonValue } from '../../json/types';
import type { VerifyContext } from '../../verify/context';
import type { FormatInput } from '../../verify/format-module';
import type { Report } from '../../verify/report';
import { singleErrorReport, strongerStatus } from '../../verify/report-builder';
import { extractEmbeddedReport, renderReportHtml } from './html';
import type { SignedReport } from './model';
import { detectReport, verifyReportDocument } from './verify';

function formatInput(tree: JsonNode, ctx: VerifyContext): FormatInput {
  let plain: JsonValue | undefined;
  let canonical: string | undefined;
  return {
    format: 'report',
    tree,
    ctx,
    get value(): JsonValue {
      plain ??= toPlain(tree);
      return plain;
    },
    canonical: () => (canonical ??= jcsTree(tree)),
    verifyNested: () =>
      singleErrorReport('unknown', 'MALFORMED', 'nesting', {
        code: 'nesting_too_deep',
        path: '',
        message: 'A report embeds no further documents.',
      }),
  };
}

/** The first offset at which two texts differ, or -1. */
function firstDifference(left: string, right: string): number {
  const length = Math.min(left.length, right.length);
  for (let index = 0; index < length; index += 1) if (left.charCodeAt(index) !== right.charCodeAt(index)) return index;
  return left.length === right.length ? -1 : length;
}

/**
 * Verify a report page.
 *
 * @param html - The page's text.
 * @param ctx - The verification context (the auditor key resolves from its did:key).
 * @returns A report of format `report` with the checks `embedded_json` and `html_rendering`
 *   added to the embedded report's own.
 */
export function verifyReportHtml(html: string, ctx: VerifyContext): Report {
  if (typeof html !== 'string') throw new TypeError('verifyReportHtml expects the page as text');
  const embedded = extractEmbeddedReport(html);
  if (!embedded.ok)
    return singleErrorReport('report', 'MALFORMED', 'embedded_json', {
      code: 'embedded_report_missing',
      path: '',
      message: embedded.reason,
    });
  let tree: JsonNode;
  try {
    tree = parseJsonTree(embedded.json);
  } catch (error) {
    if (!(error instanceof JsonParseError)) throw error;
    return singleErrorReport('report', 'MALFORMED', 'embedded_json', {
      code: error.code,
      path: error.path,
      message: `The embedded report is not strict JSON: ${error.message} (at offset ${error.offset}).`,
    });
  }
  if (detectReport(tree) === undefined) {
    return singleErrorReport('report', 'MALFORMED', 'embedded_json', {
      code: 'unknown_format',
      path: '',
      message: 'The embedded JSON is not an audit report.',
    });
  }
  const input = formatInput(tree, ctx);
  const report = verifyReportDocument(input);
  report.checks.unshift({ id: 'embedded_json', status: 'pass', detail: 'The page embeds one report as strict JSON.' });
  if (report.checks.find((check) => check.id === 'schema')?.status !== 'pass') {
    report.checks.push({
      id: 'html_rendering',
      status: 'unchecked',
      detail: 'Not checked: the embedded report breaks its schema.',
    });
    return report;
  }
  const rendered = Array.from(renderReportHtml(input.value as unknown as SignedReport)).join('');
  const offset = firstDifference(rendered, html);
  if (offset < 0) {
    report.checks.push({
      id: 'html_rendering',
      status: 'pass',
      detail:
        'The page is exactly what the embedded report renders to: every table shown was generated from the signed JSON.',
    });
  } else {
    report.checks.push({
      id: 'html_rendering',
      status: 'fail',
      detail:
        'The page differs from what the embedded report renders to: something shown was not generated from the signed JSON.',
    });
    report.errors.push({
      code: 'html_mismatch',
      path: '',
      message: `The page first differs from its rendering at character ${offset}.`,
    });
    report.status = strongerStatus(report.status, 'MISMATCH');
  }
  return report;
}
