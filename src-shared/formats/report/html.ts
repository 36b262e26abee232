/**
 * The HTML form of an audit report: one self-contained, printable file, made from the signed
 * report alone.
 *
 * Why here (src-shared) and not in src-main/report: the verifier re-renders the page from the
 * JSON it embeds and compares byte for byte, which is how `evroom verify report.html` proves the
 * visible tables were generated from the signed JSON (PROTOCOL 12). The renderer is a pure
 * function of the report, so it runs wherever a verifier does.
 *
 * No request can leave the page: no scripts run (the JSON sits in a data block), styles and
 * charts (SVG) are inline, and the page's own Content-Security-Policy is `default-src 'none'`.
 * The embedded JSON is the report's JCS text with every `<` written `\u003c`, so no string in it
 * can close the script element; it parses to the same value.
 */
import { jcs } from '../../json';
import type { JsonValue } from '../../json/types';
import {
  COMPLETENESS_SECTION,
  countDimensions,
  REPORT_SECTIONS,
  type ReportCompleteness,
  type ReportCounts,
  type SignedReport,
} from './model';
import { bundleLabel, bundleVerdict, reportVerdict } from './verdict';

/** The id of the script element that carries the signed JSON. */
export const EMBEDDED_REPORT_ID = 'evroom-report';
const OPEN_TAG = `<script type="application/json" id="${EMBEDDED_REPORT_ID}">`;
const CLOSE_TAG = '</script>';
/** The page's own policy: nothing may be fetched, nothing may run. */
export const REPORT_HTML_CSP = "default-src 'none'; style-src 'unsafe-inline'; img-src data:";
/** Rows written per chunk, so a 100,000-row page streams in pieces. */
const ROWS_PER_CHUNK = 500;

/** Escapes text for HTML element content and attribute values. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (character) => `&#${character.charCodeAt(0)};`);
}

/** The JSON text a page embeds for a report. */
export function embeddedJsonText(report: SignedReport): string {
  return jcs(report as unknown as JsonValue).replace(/</g, '\\u003c');
}

/**
 * The page's one stylesheet. The app's Content-Security-Policy allows exactly this inline style by
 * its hash (REPORT_STYLE_SHA256 there), so the in-app preview is styled and nothing else inline is.
 */
export const REPORT_STYLE = `
:root{--ink:#1b1f24;--muted:#57606a;--line:#d0d7de;--bg:#fff;--pass:#1a7f37;--fail:#cf222e;--warn:#9a6700;--info:#0969da}
*{box-sizing:border-box}body{font:14px/1.45 system-ui,-apple-system,"Segoe UI",sans-serif;color:var(--ink);background:var(--bg);margin:0;padding:24px 32px;max-width:1200px}
h1{font-size:22px;margin:0 0 4px}h2{font-size:17px;margin:28px 0 8px;border-bottom:1px solid var(--line);padding-bottom:4px}
.sub{color:var(--muted);margin:0 0 16px}.hash{font-family:ui-monospace,SFMono-Regular,Menlo,monospace;font-size:12px;word-break:break-all}
table{border-collapse:collapse;width:100%;font-size:12.5px}th,td{text-align:left;padding:3px 8px;border-bottom:1px solid var(--line);vertical-align:top}
th{background:#f6f8fa}dl{display:grid;grid-template-columns:max-content 1fr;gap:2px 16px;margin:0}dt{color:var(--muted)}dd{margin:0}
.charts{display:grid;grid-template-columns:repeat(auto-fit,minmax(340px,1fr));gap:16px}.chart{margin:0}.chart h3{font-size:13px;margin:0 0 4px}
.s-PASS{color:var(--pass)}.s-MALFORMED,.s-MISMATCH,.s-INVALID,.s-AUTH_FAILED{color:var(--fail)}.s-INDETERMINATE,.s-UNSUPPORTED{color:var(--warn)}
ul.limits li{margin-bottom:4px}footer{margin-top:32px;color:var(--muted);font-size:12px}
.verdict{border:2px solid var(--line);border-left-width:8px;border-radius:6px;padding:8px 16px 12px}
.verdict .headline{font-size:16px;font-weight:600;margin:4px 0 8px}.verdict .icon{font-size:20px;margin-right:8px}
.v-pass{border-color:var(--pass)}.v-pass .icon{color:var(--pass)}.v-fail{border-color:var(--fail)}.v-fail .icon{color:var(--fail)}
.v-warn,.v-empty{border-color:var(--warn)}.v-warn .icon,.v-empty .icon{color:var(--warn)}
.b-altered,.b-unverified{color:var(--fail);font-weight:600}.b-intact{color:var(--pass)}
@media print{body{padding:0;max-width:none}h2{break-after:avoid}tr{break-inside:avoid}thead{display:table-header-group}.verdict{break-inside:avoid}}
`;

function cell(value: string | number | null | undefined): string {
  return `<td>${value === null || value === undefined ? '<span class="sub">–</span>' : escapeHtml(String(value))}</td>`;
}

function definitionList(entries: readonly [string, string | number | boolean | null | undefined][]): string {
  return `<dl>${entries.map(([name, value]) => `<dt>${escapeHtml(name)}</dt><dd>${value === null || value === undefined ? '–' : escapeHtml(String(value))}</dd>`).join('')}</dl>`;
}

/** A horizontal bar chart of one count dimension, as inline SVG. */
function barChart(title: string, entries: readonly [string, number][]): string {
  const max = Math.max(1, ...entries.map(([, count]) => count));
  const rowHeight = 20;
  const height = Math.max(1, entries.length) * rowHeight + 4;
  const bars = entries
    .map(([name, count], index) => {
      const y = index * rowHeight + 2;
      const width = Math.round((count / max) * 120);
      const label = name.length > 24 ? `${name.slice(0, 23)}…` : name;
      return `<text x="0" y="${y + 14}" font-size="12">${escapeHtml(label)}</text><rect x="165" y="${y + 3}" width="${width}" height="14" fill="#0969da" rx="2"/><text x="${169 + width}" y="${y + 14}" font-size="12">${count}</text>`;
    })
    .join('');
  return `<figure class="chart"><h3>${escapeHtml(title)}</h3><svg xmlns="http://www.w3.org/2000/svg" width="330" height="${height}" role="img" aria-label="${escapeHtml(title)}">${bars}</svg></figure>`;
}

function countsTable(counts: ReportCounts): string {
  const rows: string[] = [];
  for (const [dimension, title, entries] of countDimensions(counts)) {
    for (const [name, count] of entries)
      rows.push(
        `<tr><td>${title}</td>${cell(name)}<td data-count="${dimension}:${escapeHtml(name)}">${count}</td></tr>`,
      );
  }
  return `<table><thead><tr><th>by</th><th>value</th><th>receipts</th></tr></thead><tbody>${rows.join('')}</tbody></table>`;
}

/** The verdict summary: the overall verdict in words, with colour and icon, and the counts under it. */
function verdictSection(report: SignedReport): string {
  const verdict = reportVerdict(report);
  return `<section id="verdict"><h2>${sectionTitle('verdict')}</h2><div class="verdict v-${verdict.tone}" data-verdict="${verdict.tone}"><p class="headline"><span class="icon" aria-hidden="true">${verdict.icon}</span>${escapeHtml(verdict.headline)}</p>${definitionList(verdict.lines)}</div></section>\n`;
}

function sectionTitle(id: (typeof REPORT_SECTIONS)[number][0]): string {
  return REPORT_SECTIONS.find(([name]) => name === id)?.[1] ?? id;
}

/** A completeness entry's period in words: `SINCE to UNTIL`, open ends named. */
export function completenessPeriodText(entry: Pick<ReportCompleteness, 'period'>): string {
  return `${entry.period.since ?? 'the start'} to ${entry.period.until ?? 'the checkpoint'}`;
}

/** The completeness section, only for a report that has one (see COMPLETENESS_SECTION). */
function completenessSection(entries: ReportCompleteness[] | undefined, bundleNames: Map<string, string>): string {
  if (entries === undefined) return '';
  const rows = entries
    .map((entry) => {
      const failed = entry.status !== 'complete' || entry.consistency === 'split_view';
      return `<tr>${cell(bundleNames.get(entry.bundle_sha256) ?? entry.bundle_sha256)}${cell(entry.tenant_id)}${cell(completenessPeriodText(entry))}<td class="${failed ? 'b-altered' : 'b-intact'}">${escapeHtml(entry.status)}</td>${cell(entry.tree_size)}${cell(entry.missing_count)}${cell(entry.signer)}<td${entry.consistency === 'split_view' ? ' class="b-altered"' : ''}>${escapeHtml(entry.consistency === 'split_view' ? 'SPLIT VIEW' : (entry.consistency ?? 'not checked'))}</td>${cell(entry.sentence)}</tr>`;
    })
    .join('');
  return `<section id="${COMPLETENESS_SECTION[0]}"><h2>${COMPLETENESS_SECTION[1]}</h2><table><thead><tr><th>bundle</th><th>tenant</th><th>period</th><th>status</th><th>log size</th><th>missing</th><th>log key</th><th>consistency</th><th>in words</th></tr></thead><tbody>${rows}</tbody></table></section>\n`;
}

/**
 * The page for a signed report, in chunks (write them in order to a file or join them).
 *
 * @param report - The signed report.
 * @param json - The report's JCS text when the caller has it (saves computing it again for a
 *   large report); it must be exactly `jcs(report)`.
 * @returns The page's text, piece by piece.
 */
export function* renderReportHtml(report: SignedReport, json?: string): Generator<string> {
  const total = report.receipts.length;
  const filters = Object.entries(report.scope.filters).sort(([left], [right]) => (left < right ? -1 : 1));
  yield `<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">`;
  yield `<meta http-equiv="Content-Security-Policy" content="${REPORT_HTML_CSP}">`;
  yield `<meta name="viewport" content="width=device-width,initial-scale=1"><meta name="evroom-payload-sha256" content="${escapeHtml(report.payload_sha256)}">`;
  yield `<title>Audit report ${escapeHtml(report.report_id)}</title><style>${REPORT_STYLE}</style></head><body>\n`;
  yield `<header><h1>Audit report</h1><p class="sub">${escapeHtml(report.report_id)} · generated ${escapeHtml(report.generated_at)} by ${escapeHtml(report.generator.name)} ${escapeHtml(report.generator.version)} · ${total} receipt${total === 1 ? '' : 's'}</p>`;
  yield `<p class="hash">payload_sha256 ${escapeHtml(report.payload_sha256)}</p></header>\n<main>\n`;
  yield verdictSection(report);
  yield `<section id="scope"><h2>${sectionTitle('scope')}</h2>${definitionList([
    ...(filters.length === 0
      ? [['filters', 'none: every receipt of the ledger'] as [string, string]]
      : filters.map(([name, value]) => [name, value] as [string, string])),
    ['as of', report.scope.as_of ?? 'the time of the report (current trust)'],
  ])}</section>\n`;
  yield `<section id="environment"><h2>${sectionTitle('environment')}</h2>${definitionList([
    ['generator', `${report.generator.name} ${report.generator.version}`],
    ['network', report.environment.offline ? 'offline (no chain was consulted)' : 'online'],
    ['audit log head', report.environment.ledger_audit_head],
  ])}</section>\n`;
  yield `<section id="trust"><h2>${sectionTitle('trust')}</h2><p class="hash">sha256 ${escapeHtml(report.trust_snapshot.sha256)}</p>`;
  yield report.trust_snapshot.keys.length === 0
    ? '<p class="sub">The trust store held no keys: no receipt can be trusted.</p>'
    : `<table><thead><tr><th>key id</th><th>status</th><th>label</th><th>algorithm</th><th>not before</th><th>not after</th></tr></thead><tbody>${report.trust_snapshot.keys
        .map(
          (key) =>
            `<tr>${cell(key.key_id)}${cell(key.roles === undefined ? key.status : `${key.status} for ${key.roles.join(', ')}`)}${cell(key.label)}${cell(key.algorithm)}${cell(key.not_before)}${cell(key.not_after)}</tr>`,
        )
        .join('')}</tbody></table>`;
  yield '</section>\n';
  yield `<section id="inputs"><h2>${sectionTitle('inputs')}</h2>`;
  yield report.inputs.bundles.length === 0
    ? '<p class="sub">No bundle: the receipts were verified one by one.</p>'
    : `<table><thead><tr><th>file</th><th>verdict</th><th>manifest sha256</th><th>manifest signer</th><th>signature</th><th>findings</th></tr></thead><tbody>${report.inputs.bundles
        .map(
          (bundle) =>
            `<tr>${cell(bundleLabel(bundle))}<td class="b-${bundleVerdict(bundle)}">${bundleVerdict(bundle)}</td><td class="hash">${escapeHtml(bundle.manifest_sha256)}</td>${cell(bundle.signer_key_id)}${cell(bundle.signature_status)}${cell(bundle.findings)}</tr>`,
        )
        .join('')}</tbody></table>`;
  yield '</section>\n';
  yield `<section id="counts"><h2>${sectionTitle('counts')}</h2><div class="charts">${countDimensions(report.counts)
    .map(([, title, entries]) => barChart(`By ${title}`, entries))
    .join('')}</div>${countsTable(report.counts)}</section>\n`;
  yield `<section id="findings"><h2>${sectionTitle('findings')}</h2>`;
  const bundleNames = new Map(report.inputs.bundles.map((bundle) => [bundle.bundle_sha256, bundleLabel(bundle)]));
  yield report.findings.length === 0
    ? '<p class="sub">No findings.</p>'
    : `<table><thead><tr><th>bundle</th><th>code</th><th>path</th><th>message</th></tr></thead><tbody>${report.findings
        .map(
          (finding) =>
            `<tr>${cell(bundleNames.get(finding.bundle_sha256) ?? bundleLabel({ file: null, bundle_sha256: finding.bundle_sha256 }))}${cell(finding.code)}${cell(finding.path)}${cell(finding.message)}</tr>`,
        )
        .join('')}</tbody></table>`;
  yield '</section>\n';
  yield completenessSection(report.completeness, bundleNames);
  yield `<section id="receipts"><h2>${sectionTitle('receipts')}</h2><table><thead><tr><th>receipt sha256</th><th>receipt id</th><th>format</th><th>status</th><th>trust</th><th>anchor</th><th>issued at</th></tr></thead><tbody>\n`;
  for (let start = 0; start < total; start += ROWS_PER_CHUNK) {
    let chunk = '';
    for (const row of report.receipts.slice(start, start + ROWS_PER_CHUNK)) {
      chunk += `<tr><td class="hash">${row.receipt_sha256}</td>${cell(row.receipt_id)}${cell(row.format)}<td class="s-${row.status}">${row.status}</td>${cell(row.trust)}${cell(row.anchor_state)}${cell(row.issued_at)}</tr>\n`;
    }
    yield chunk;
  }
  yield '</tbody></table></section>\n';
  yield `<section id="limits"><h2>${sectionTitle('limits')}</h2><ul class="limits">${report.claim_limits.map((text) => `<li>${escapeHtml(text)}</li>`).join('')}</ul></section>\n`;
  yield `<section id="signature"><h2>${sectionTitle('signature')}</h2>${definitionList([
    ['signed by', report.signer.key_id],
    ['payload_sha256', report.payload_sha256],
    ['sig_b64u', report.sig_b64u],
  ])}<p class="sub">Check this file with <code>evroom verify</code>: it verifies the signed JSON embedded below and that this page was generated from it.</p></section>\n</main>\n`;
  yield `${OPEN_TAG}${json === undefined ? embeddedJsonText(report) : json.replace(/</g, '\\u003c')}${CLOSE_TAG}\n`;
  yield `<footer>Evidence Room audit report · ${escapeHtml(report.report_id)}</footer></body></html>\n`;
}

/** Where the embedded JSON sits in a page, or why it cannot be found. */
export type EmbeddedReport = { ok: true; json: string } | { ok: false; reason: string };

/**
 * Finds the signed JSON a report page embeds.
 *
 * @param html - The page's text.
 * @returns The JSON text, or why there is none (no element, or more than one).
 */
export function extractEmbeddedReport(html: string): EmbeddedReport {
  if (typeof html !== 'string') throw new TypeError('extractEmbeddedReport expects the page as text');
  const start = html.indexOf(OPEN_TAG);
  if (start < 0)
    return {
      ok: false,
      reason: `The page has no <script type="application/json" id="${EMBEDDED_REPORT_ID}"> element.`,
    };
  if (html.indexOf(OPEN_TAG, start + OPEN_TAG.length) >= 0)
    return { ok: false, reason: 'The page embeds more than one report.' };
  const end = html.indexOf(CLOSE_TAG, start + OPEN_TAG.length);
  if (end < 0) return { ok: false, reason: 'The embedded report is not closed by </script>.' };
  return { ok: true, json: html.slice(start + OPEN_TAG.length, end) };
}

/**
 * Whether a text starts like an HTML page (after optional whitespace).
 *
 * @param text - The first bytes of a file, decoded.
 * @returns True for `<!DOCTYPE html` or `<html`.
 */
export function looksLikeHtml(text: string): boolean {
  return /^\s*<(!doctype\s+html|html)[\s>]/i.test(text.slice(0, 256));
}
