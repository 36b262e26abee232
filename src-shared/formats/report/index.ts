/**
 * Audit reports (`evroom.report/1`, PROTOCOL section 12): the document model, recognition,
 * verification of the JSON and of the HTML page, and the HTML rendering.
 */
import type { FormatModule } from '../../verify/format-module';
import { reportFacts, reportSignedContent } from './facts';
import { detectReport, verifyReportDocument } from './verify';

export {
  ANCHOR_STATES,
  CLAIM_LIMITS,
  REPORT_FORMAT_ID,
  REPORT_ID_PATTERN,
  REPORT_MEMBERS,
  REPORT_SECTIONS,
  ROW_MEMBERS,
  COMPLETENESS_CONSISTENCY,
  COMPLETENESS_MEMBERS,
  COMPLETENESS_SECTION,
  COMPLETENESS_SIGNERS,
  COMPLETENESS_STATUSES,
  MAX_REPORTED_MISSING,
  REPORT_OPTIONAL_MEMBERS,
  addRowToCounts,
  countDimensions,
  countReportRows,
  orderedCounts,
  receiptsJcs,
  reportJcs,
  type AnchorState,
  type ReportBundle,
  type ReportCompleteness,
  type ReportCounts,
  type ReportFinding,
  type ReportRow,
  type ReportScope,
  type SignedReport,
  type SnapshotKey,
  type UnsignedReport,
} from './model';
export { REPORT_CHECKS, REPORT_NOTE, detectReport, trustSnapshotSha256, verifyReportDocument } from './verify';
export {
  EMBEDDED_REPORT_ID,
  REPORT_HTML_CSP,
  REPORT_STYLE,
  completenessPeriodText,
  embeddedJsonText,
  escapeHtml,
  extractEmbeddedReport,
  looksLikeHtml,
  renderReportHtml,
} from './html';
export { verifyReportHtml } from './verify-html';
export {
  EMPTY_REPORT_MARK,
  VERDICT_ICONS,
  bundleLabel,
  bundleVerdict,
  reportVerdict,
  type BundleVerdict,
  type ReportVerdict,
  type VerdictTone,
} from './verdict';

/**
 * The report format's entry in the registry. Reports are made by `evroom report` from the
 * ledger, not issued from caller fields, so the format has no issuers and no samples of its own
 * (its tests make and tamper reports).
 */
export const reportFormat: FormatModule = {
  name: 'report',
  owns: (format) => format === 'report',
  detect: detectReport,
  verify: verifyReportDocument,
  signedContent: reportSignedContent,
  facts: reportFacts,
  issuers: [],
  samples: () => undefined,
};
