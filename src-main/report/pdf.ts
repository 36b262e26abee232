/**
 * The PDF form of an audit report, written with pdfkit (no browser: the CLI makes it on an
 * air-gapped machine too).
 *
 * The same sections as the HTML page, on A4 landscape. Fonts are DejaVu Sans and DejaVu Sans
 * Mono from resources/fonts, embedded as subsets, so the file shows the same on any reader.
 * Every page carries the report id, its payload_sha256 and its page number in the footer. The
 * receipts table is one monospaced line per receipt and continues across pages under a repeated
 * header; pdfkit writes each page out when the next begins, so memory holds one page.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import PDFDocument from 'pdfkit';
import {
  countDimensions,
  REPORT_SECTIONS,
  type ReportCounts,
  type SignedReport,
} from '../../src-shared/formats/report';

const MARGIN = 36;
const FOOTER_HEIGHT = 20;
const ROW_FONT_SIZE = 6.4;
const ROW_HEIGHT = 8.6;
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

function fit(text: string | null | undefined, width: number): string {
  const value = text ?? '–';
  return value.length > width ? `${value.slice(0, width - 1)}…` : value.padEnd(width);
}

/**
 * Writes a report as PDF into a stream, which is ended when the document is complete.
 *
 * @param report - The signed report.
 * @param out - Where to write.
 * @returns When the whole document has been handed to `out`.
 */
export function writeReportPdf(report: SignedReport, out: NodeJS.WritableStream): Promise<void> {
  const fonts = fontsFolder();
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
    },
  });
  const done = new Promise<void>((resolve, reject) => {
    doc.on('end', resolve);
    doc.on('error', reject);
  });
  doc.pipe(out);
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
    doc.font('mono').fontSize(7).fillColor('#57606a');
    doc.text(
      `Audit report ${report.report_id} · payload_sha256 ${report.payload_sha256} · page ${pageNumber}`,
      MARGIN,
      doc.page.height - MARGIN - 6,
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
  const heading = (id: (typeof REPORT_SECTIONS)[number][0]): void => {
    ensure(40);
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
  const monoLine = (line: string, size = ROW_FONT_SIZE): void => {
    ensure(ROW_HEIGHT);
    doc.font('mono').fontSize(size).text(line, MARGIN, doc.y, { lineBreak: false, height: ROW_HEIGHT });
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
  doc.font('mono').fontSize(8).text(`payload_sha256 ${report.payload_sha256}`, MARGIN, doc.y);

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
    monoLine(
      `${fit('key id', 70)} ${fit('status', 8)} ${fit('label', 30)} ${fit('not before', 24)} ${fit('not after', 24)}`,
    );
    for (const key of report.trust_snapshot.keys) {
      monoLine(
        `${fit(key.key_id, 70)} ${fit(key.status, 8)} ${fit(key.label, 30)} ${fit(key.not_before, 24)} ${fit(key.not_after, 24)}`,
      );
      if (key.roles !== undefined) monoLine(`  pinned for: ${key.roles.join(', ')}`);
    }
  }

  heading('inputs');
  if (report.inputs.bundles.length === 0) paragraph('No bundle: the receipts were verified one by one.');
  else {
    monoLine(
      `${fit('file', 30)} ${fit('manifest sha256', 64)} ${fit('manifest signer', 50)} ${fit('signature', 11)} findings`,
    );
    for (const bundle of report.inputs.bundles)
      monoLine(
        `${fit(bundle.file, 30)} ${fit(bundle.manifest_sha256, 64)} ${fit(bundle.signer_key_id, 50)} ${fit(bundle.signature_status, 11)} ${bundle.findings}`,
      );
  }

  heading('counts');
  drawCounts(doc, report.counts, width, ensure);

  heading('findings');
  if (report.findings.length === 0) paragraph('No findings.');
  for (const finding of report.findings)
    paragraph(`${finding.bundle_sha256.slice(0, 12)} ${finding.code} ${finding.path}: ${finding.message}`, 8);

  heading('receipts');
  const header = `${fit('receipt sha256', 64)} ${fit('receipt id', 30)} ${fit('format', 24)} ${fit('status', 13)} ${fit('trust', 14)} ${fit('anchor', 8)} issued at`;
  monoLine(header);
  for (const row of report.receipts) {
    if (doc.y + ROW_HEIGHT > bottomLimit()) {
      doc.addPage();
      monoLine(header);
    }
    monoLine(
      `${row.receipt_sha256} ${fit(row.receipt_id, 30)} ${fit(row.format, 24)} ${fit(row.status, 13)} ${fit(row.trust, 14)} ${fit(row.anchor_state, 8)} ${row.issued_at ?? '–'}`,
    );
  }

  heading('limits');
  for (const text of report.claim_limits) paragraph(`• ${text}`);

  heading('signature');
  field('signed by', report.signer.key_id);
  field('payload_sha256', report.payload_sha256);
  field('sig_b64u', report.sig_b64u);
  paragraph(
    'The signed JSON form of this report verifies with `evroom verify`; this PDF shows the same report and carries its payload_sha256 on every page.',
  );
  doc.end();
  return done;
}

/** Bar charts and a table of the counts. */
function drawCounts(
  doc: PDFKit.PDFDocument,
  counts: ReportCounts,
  width: number,
  ensure: (height: number) => void,
): void {
  const dimensions = countDimensions(counts).map(([, title, entries]) => [`by ${title}`, entries] as const);
  const columnWidth = width / 4;
  const rows = Math.max(...dimensions.map(([, entries]) => entries.length));
  ensure(rows * 12 + 20);
  const top = doc.y;
  dimensions.forEach(([title, values], column) => {
    const left = MARGIN + column * columnWidth;
    const max = Math.max(1, ...values.map(([, count]) => count));
    doc.font('sans').fontSize(9).fillColor('#1b1f24').text(title, left, top, { lineBreak: false });
    values.forEach(([name, count], index) => {
      const y = top + 14 + index * 12;
      doc
        .font('sans')
        .fontSize(7.5)
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
