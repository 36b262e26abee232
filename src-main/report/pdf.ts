/**
 * The PDF form of an audit report, written with pdfkit (no browser: the CLI makes it on an
 * air-gapped machine too).
 *
 * The same sections as the HTML page, on A4 landscape. Fonts are DejaVu Sans and DejaVu Sans
 * Mono from resources/fonts, embedded as subsets, so the file shows the same on any reader.
 * Every page carries the report id, its payload_sha256 and its page number in the footer. The
 * verdict summary comes first. The receipts table is two monospaced lines per receipt (no text in
 * the PDF is smaller than {@link MIN_FONT_SIZE} pt) and continues across pages under a repeated
 * header; pdfkit writes each page out when the next begins, so memory holds one page.
 *
 * The signed JSON form rides along as an attached file (the `EmbeddedFiles` name tree, with
 * `/AFRelationship /Source`: the pages are rendered from it), named `<report_id>.json`, so
 * `evroom verify report.pdf` checks the report the PDF carries. The document's dates are the
 * report's `generated_at`, so the PDF is a function of the signed JSON alone.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import PDFDocument from 'pdfkit';
import {
  bundleLabel,
  bundleVerdict,
  COMPLETENESS_SECTION,
  completenessPeriodText,
  countDimensions,
  REPORT_SECTIONS,
  reportVerdict,
  type ReportCounts,
  type SignedReport,
  type VerdictTone,
} from '../../src-shared/formats/report';

const MARGIN = 36;
const FOOTER_HEIGHT = 20;
/** The smallest font size the PDF uses, in points (tables included). */
export const MIN_FONT_SIZE = 8;
const ROW_FONT_SIZE = MIN_FONT_SIZE;
const ROW_HEIGHT = 10;
const TONE_COLOUR: Record<VerdictTone, string> = {
  pass: '#1a7f37',
  warn: '#9a6700',
  fail: '#cf222e',
  empty: '#9a6700',
};
/** The name of the attached signed JSON: `<report_id>.json`. */
export function attachedReportName(report: Pick<SignedReport, 'report_id'>): string {
  return `${report.report_id}.json`;
}
const FONT_FILES = { sans: 'DejaVuSans.ttf', mono: 'DejaVuSansMono.ttf' } as const;

let fontFolder: string | undefined;

/** resources/fonts, found from this module upwards (from source and from the built app). */
function fontsFolder(): string {
  if (fontFolder !== undefined) return fontFolder;
  let folder = path.dirname(fileURLToPath(import.meta.url));
  for (let level = 0; level < 6; level += 1) {
    const candidate = path.join(folder, 'resources', 'fonts');
    if (fs.existsSync(path.join(candidate, FONT_FILES.sans))) {
      fontFolder = candidate;
      return candidate;
    }
    folder = path.dirname(folder);
  }
  throw new Error('The report fonts (resources/fonts) were not found');
}

interface GlyphLayout {
  glyphs: unknown[];
  positions: unknown[];
  advanceWidth: number;
}
interface LayoutFont {
  layoutRun(text: string): GlyphLayout;
  layout(
    text: string,
    features?: unknown,
    onlyWidth?: boolean,
  ): { glyphs: unknown[] | null; positions: unknown[] | null; advanceWidth: number };
}

/**
 * Lays out the monospaced font one character at a time from a per-character cache.
 *
 * Why: pdfkit shapes each word with fontkit and caches the result by word. A receipts table is
 * 300,000 distinct words (hashes, ids, instants): the cache grew past 2 GB and shaping took over
 * 90 s for 100,000 rows. A monospaced font has no kerning or ligatures between the characters a
 * table holds, so a character's glyph and advance are the same wherever it stands; the glyph and
 * position objects are shared read-only (pdfkit copies a position before changing one).
 */
function layoutByCharacter(font: LayoutFont): void {
  const original = font.layout.bind(font);
  const cache = new Map<string, GlyphLayout>();
  font.layout = (text, features, onlyWidth) => {
    if (features) return original(text, features, onlyWidth);
    const glyphs: unknown[] = [];
    const positions: unknown[] = [];
    let advanceWidth = 0;
    for (const character of text) {
      let run = cache.get(character);
      if (run === undefined) {
        run = font.layoutRun(character);
        cache.set(character, run);
      }
      if (!onlyWidth) {
        for (const glyph of run.glyphs) glyphs.push(glyph);
        for (const position of run.positions) positions.push(position);
      }
      advanceWidth += run.advanceWidth;
    }
    return { glyphs: onlyWidth ? null : glyphs, positions: onlyWidth ? null : positions, advanceWidth };
  };
}

function sectionTitle(id: (typeof REPORT_SECTIONS)[number][0]): string {
  return REPORT_SECTIONS.find(([name]) => name === id)?.[1] ?? id;
}

/** A text cut to `width` characters with an ellipsis, padded to it. */
function fit(text: string | null | undefined, width: number): string {
  const value = text ?? '–';
  return value.length > width ? `${value.slice(0, width - 1)}…` : value.padEnd(width);
}

/**
 * Writes a report as PDF into a stream, which is ended when the document is complete.
 *
 * @param report - The signed report.
 * @param json - Its JSON form's text (JCS and a newline): attached to the PDF as it is.
 * @param out - Where to write.
 * @returns When the whole document has been handed to `out`.
 */
export function writeReportPdf(report: SignedReport, json: string, out: NodeJS.WritableStream): Promise<void> {
  if (typeof json !== 'string' || json.length === 0)
    throw new TypeError('writeReportPdf expects the report’s JSON text');
  const fonts = fontsFolder();
  const generatedAt = new Date(report.generated_at);
  const doc = new PDFDocument({
    size: 'A4',
    layout: 'landscape',
    margins: { top: MARGIN, left: MARGIN, right: MARGIN, bottom: MARGIN + FOOTER_HEIGHT },
    autoFirstPage: false,
    info: {
      Title: `Audit report ${report.report_id}`,
      Author: report.signer.key_id,
      Subject: `payload_sha256 ${report.payload_sha256}`,
      Creator: `${report.generator.name} ${report.generator.version}`,
      CreationDate: generatedAt,
    },
  });
  const done = new Promise<void>((resolve, reject) => {
    doc.on('end', resolve);
    doc.on('error', reject);
  });
  doc.pipe(out);
  // pdfkit 0.20 takes `relationship` (its typings do not list it yet).
  doc.file(Buffer.from(json, 'utf8'), {
    name: attachedReportName(report),
    type: 'application/json',
    relationship: 'Source',
    description: `The signed audit report ${report.report_id} (evroom.report/1) these pages show; check it with evroom verify`,
    creationDate: generatedAt,
    modifiedDate: generatedAt,
  } as PDFKit.Mixins.PDFAttachmentOptions);
  doc.registerFont('sans', path.join(fonts, FONT_FILES.sans));
  doc.registerFont('mono', path.join(fonts, FONT_FILES.mono));
  // pdfkit keeps the current font in a private member; it is the embedded font's own object.
  doc.font('mono');
  layoutByCharacter((doc as unknown as { _font: LayoutFont })._font);
  let pageNumber = 0;
  doc.on('pageAdded', () => {
    pageNumber += 1;
    // The footer sits in the bottom margin; drawing there must not start another page.
    const { x, y } = doc;
    const bottom = doc.page.margins.bottom;
    doc.page.margins.bottom = 0;
    doc.font('mono').fontSize(MIN_FONT_SIZE).fillColor('#57606a');
    doc.text(
      `Audit report ${report.report_id} · payload_sha256 ${report.payload_sha256} · page ${pageNumber}`,
      MARGIN,
      doc.page.height - MARGIN - 4,
      {
        lineBreak: false,
      },
    );
    doc.page.margins.bottom = bottom;
    doc.fillColor('#1b1f24');
    doc.x = x;
    doc.y = y;
  });
  doc.addPage();
  const width = doc.page.width - 2 * MARGIN;
  const bottomLimit = (): number => doc.page.height - doc.page.margins.bottom;
  const ensure = (height: number): void => {
    if (doc.y + height > bottomLimit()) doc.addPage();
  };
  /** A section's title, on the page of its first `keepWith` points of content (never alone at a page's foot). */
  const heading = (id: (typeof REPORT_SECTIONS)[number][0], keepWith = 0): void => {
    ensure(40 + keepWith);
    doc.moveDown(0.6);
    doc.font('sans').fontSize(13).fillColor('#1b1f24').text(sectionTitle(id), MARGIN, doc.y);
    doc
      .moveTo(MARGIN, doc.y + 1)
      .lineTo(MARGIN + width, doc.y + 1)
      .strokeColor('#d0d7de')
      .stroke();
    doc.moveDown(0.3);
  };
  const field = (name: string, value: string): void => {
    doc.font('sans').fontSize(9).fillColor('#57606a').text(`${name}: `, MARGIN, doc.y, { continued: true, width });
    doc.fillColor('#1b1f24').text(value);
  };
  const monoLine = (line: string, colour = '#1b1f24'): void => {
    ensure(ROW_HEIGHT);
    doc
      .font('mono')
      .fontSize(ROW_FONT_SIZE)
      .fillColor(colour)
      .text(line, MARGIN, doc.y, { lineBreak: false, height: ROW_HEIGHT });
    doc.fillColor('#1b1f24');
    doc.y += ROW_HEIGHT;
  };
  const paragraph = (text: string, size = 9): void => {
    doc.font('sans').fontSize(size).fillColor('#1b1f24').text(text, MARGIN, doc.y, { width });
  };

  // Title
  doc.font('sans').fontSize(20).text('Audit report', MARGIN, doc.y);
  paragraph(
    `${report.report_id} · generated ${report.generated_at} by ${report.generator.name} ${report.generator.version} · ${report.receipts.length} receipts`,
  );
  doc.font('mono').fontSize(MIN_FONT_SIZE).text(`payload_sha256 ${report.payload_sha256}`, MARGIN, doc.y);

  // The verdict summary: a framed block, its colour bar and icon beside the words.
  heading('verdict');
  const verdict = reportVerdict(report);
  const colour = TONE_COLOUR[verdict.tone];
  const top = doc.y;
  doc
    .font('sans')
    .fontSize(12)
    .fillColor(colour)
    .text(`${verdict.icon} `, MARGIN + 14, top + 6, { continued: true, width: width - 24 });
  doc.fillColor('#1b1f24').text(verdict.headline);
  doc.moveDown(0.2);
  for (const [name, value] of verdict.lines) {
    doc
      .font('sans')
      .fontSize(9)
      .fillColor('#57606a')
      .text(`${name}: `, MARGIN + 14, doc.y, { continued: true, width: width - 24 });
    doc.fillColor('#1b1f24').text(value);
  }
  const bottom = doc.y + 6;
  doc
    .rect(MARGIN, top, width, bottom - top)
    .lineWidth(1.5)
    .strokeColor(colour)
    .stroke();
  doc.rect(MARGIN, top, 6, bottom - top).fill(colour);
  doc.lineWidth(1).fillColor('#1b1f24');
  doc.x = MARGIN;
  doc.y = bottom;

  heading('scope');
  const filters = Object.entries(report.scope.filters).sort(([left], [right]) => (left < right ? -1 : 1));
  if (filters.length === 0) field('filters', 'none: every receipt of the ledger');
  for (const [name, value] of filters) field(name, String(value));
  field('as of', report.scope.as_of ?? 'the time of the report (current trust)');

  heading('environment');
  field('generator', `${report.generator.name} ${report.generator.version}`);
  field('network', report.environment.offline ? 'offline (no chain was consulted)' : 'online');
  field('audit log head', report.environment.ledger_audit_head);

  heading('trust');
  field('sha256', report.trust_snapshot.sha256);
  if (report.trust_snapshot.keys.length === 0) paragraph('The trust store held no keys: no receipt can be trusted.');
  else {
    monoLine(`${fit('status', 8)} key id`);
    monoLine(`${fit('', 8)} label · validity · roles`, '#57606a');
    for (const key of report.trust_snapshot.keys) {
      monoLine(`${fit(key.status, 8)} ${key.key_id}`);
      monoLine(
        `${fit('', 8)} ${key.label ?? '(no label)'} · from ${key.not_before ?? '–'} to ${key.not_after ?? '–'}${key.roles !== undefined ? ` · pinned for: ${key.roles.join(', ')}` : ''}`,
        '#57606a',
      );
    }
  }

  heading('inputs');
  if (report.inputs.bundles.length === 0) paragraph('No bundle: the receipts were verified one by one.');
  else {
    monoLine(`${fit('verdict', 10)} ${fit('findings', 8)} file`);
    monoLine(`${fit('', 10)} manifest sha256 · manifest signer · signature`, '#57606a');
    for (const bundle of report.inputs.bundles) {
      const bundleState = bundleVerdict(bundle);
      monoLine(
        `${fit(bundleState, 10)} ${fit(String(bundle.findings), 8)} ${bundleLabel(bundle)}`,
        bundleState === 'intact' ? '#1b1f24' : TONE_COLOUR.fail,
      );
      monoLine(
        `${fit('', 10)} ${bundle.manifest_sha256} · ${bundle.signer_key_id ?? '(no signer)'} · ${bundle.signature_status}`,
        '#57606a',
      );
    }
  }

  heading('counts', countsHeight(report.counts));
  drawCounts(doc, report.counts, width, ensure);

  heading('findings');
  if (report.findings.length === 0) paragraph('No findings.');
  const bundleNames = new Map(report.inputs.bundles.map((bundle) => [bundle.bundle_sha256, bundleLabel(bundle)]));
  for (const finding of report.findings)
    paragraph(
      `${bundleNames.get(finding.bundle_sha256) ?? bundleLabel({ file: null, bundle_sha256: finding.bundle_sha256 })} · ${finding.code} ${finding.path}: ${finding.message}`,
      MIN_FONT_SIZE,
    );

  if (report.completeness !== undefined) {
    // Only a report with log evidence has this section (COMPLETENESS_SECTION).
    ensure(40);
    doc.moveDown(0.6);
    doc.font('sans').fontSize(13).fillColor('#1b1f24').text(COMPLETENESS_SECTION[1], MARGIN, doc.y);
    doc
      .moveTo(MARGIN, doc.y + 1)
      .lineTo(MARGIN + width, doc.y + 1)
      .strokeColor('#d0d7de')
      .stroke();
    doc.moveDown(0.3);
    for (const entry of report.completeness) {
      const failed = entry.status !== 'complete' || entry.consistency === 'split_view';
      monoLine(
        `${fit(entry.consistency === 'split_view' ? 'SPLIT VIEW' : entry.status, 11)} ${fit(entry.tenant_id ?? '(no tenant)', 20)} ${completenessPeriodText(entry)}`,
        failed ? TONE_COLOUR.fail : '#1b1f24',
      );
      paragraph(
        `${bundleNames.get(entry.bundle_sha256) ?? entry.bundle_sha256} · log key ${entry.signer} · consistency ${entry.consistency ?? 'not checked'} · ${entry.sentence}`,
        MIN_FONT_SIZE,
      );
    }
  }

  heading('receipts');
  // Two lines per receipt: what is judged on the first, what names it on the second (grey).
  const header = `${fit('receipt sha256', 64)} ${fit('status', 13)} ${fit('trust', 14)} ${fit('anchor', 8)} issued at`;
  const subheader = `${fit('', 2)}receipt id · format`;
  if (report.receipts.length === 0) paragraph('No receipts: nothing was in this report’s scope.');
  else {
    monoLine(header);
    monoLine(subheader, '#57606a');
  }
  for (const row of report.receipts) {
    if (doc.y + 2 * ROW_HEIGHT > bottomLimit()) {
      doc.addPage();
      monoLine(header);
      monoLine(subheader, '#57606a');
    }
    monoLine(
      `${row.receipt_sha256} ${fit(row.status, 13)} ${fit(row.trust, 14)} ${fit(row.anchor_state, 8)} ${row.issued_at ?? '–'}`,
      row.status === 'PASS' ? '#1b1f24' : TONE_COLOUR.fail,
    );
    monoLine(`${fit('', 2)}${row.receipt_id ?? '(no receipt id)'} · ${row.format}`, '#57606a');
  }

  heading('limits');
  for (const text of report.claim_limits) paragraph(`• ${text}`);

  heading('signature');
  field('signed by', report.signer.key_id);
  field('payload_sha256', report.payload_sha256);
  field('sig_b64u', report.sig_b64u);
  paragraph(
    `This PDF carries the signed JSON form of this report as the attached file ${attachedReportName(report)}: \`evroom verify\` on this PDF checks it. The pages show the same report and carry its payload_sha256 on every page.`,
  );
  doc.end();
  return done;
}

/** Bar charts and a table of the counts. */
/** The height the counts' columns take (the tallest column: its title and one line per value). */
function countsHeight(counts: ReportCounts): number {
  const rows = Math.max(...countDimensions(counts).map(([, , entries]) => entries.length));
  return rows * 12 + 20;
}

function drawCounts(
  doc: PDFKit.PDFDocument,
  counts: ReportCounts,
  width: number,
  ensure: (height: number) => void,
): void {
  const dimensions = countDimensions(counts).map(([, title, entries]) => [`by ${title}`, entries] as const);
  const columnWidth = width / 4;
  const rows = Math.max(...dimensions.map(([, entries]) => entries.length));
  ensure(countsHeight(counts));
  const top = doc.y;
  dimensions.forEach(([title, values], column) => {
    const left = MARGIN + column * columnWidth;
    const max = Math.max(1, ...values.map(([, count]) => count));
    doc.font('sans').fontSize(9).fillColor('#1b1f24').text(title, left, top, { lineBreak: false });
    values.forEach(([name, count], index) => {
      const y = top + 14 + index * 12;
      doc
        .font('sans')
        .fontSize(MIN_FONT_SIZE)
        .fillColor('#1b1f24')
        .text(name.length > 22 ? `${name.slice(0, 21)}…` : name, left, y, { lineBreak: false });
      const barWidth = Math.round((count / max) * (columnWidth - 140));
      if (barWidth > 0) doc.rect(left + 92, y, barWidth, 8).fill('#0969da');
      doc.fillColor('#1b1f24').text(String(count), left + 96 + barWidth, y, { lineBreak: false });
    });
  });
  doc.x = MARGIN;
  doc.y = top + 16 + rows * 12;
}
