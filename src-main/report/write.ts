/**
 * Writing a signed report to a file in one of its forms: JSON (the signed JCS text), HTML (the
 * self-contained page) or PDF.
 *
 * Each form is written to a temporary file beside the target and renamed into place when
 * complete, so a failed or interrupted write leaves no half report under the chosen name.
 */
import type { writeReportPdf as WriteReportPdf } from './pdf';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { once } from 'node:events';
import { renderReportHtml, type SignedReport } from '../../src-shared/formats/report';
import { REPORT_FORMS, type ReportFormName } from '../../src-shared/api/contract';

/** The forms a report is written in (the app API contract's list). */
export { REPORT_FORMS };
export type ReportForm = ReportFormName;

/**
 * The form a file name asks for, by its extension.
 *
 * @param file - A file name.
 * @returns `json`, `html` (also `.htm`), `pdf`, or undefined.
 */
export function reportFormOf(file: string): ReportForm | undefined {
  const extension = path.extname(file).toLowerCase();
  if (extension === '.json') return 'json';
  if (extension === '.html' || extension === '.htm') return 'html';
  if (extension === '.pdf') return 'pdf';
  return undefined;
}

/**
 * Writes the HTML page of a report to a writable stream, chunk by chunk.
 *
 * @param report - The signed report.
 * @param out - Where to write.
 * @param json - The report's JCS text, when at hand.
 */
export async function writeReportHtml(report: SignedReport, out: NodeJS.WritableStream, json?: string): Promise<void> {
  for (const chunk of renderReportHtml(report, json)) {
    if (!out.write(chunk)) await once(out, 'drain');
  }
}

/**
 * Writes a report to a file in a form.
 *
 * @param report - The signed report.
 * @param json - Its JSON text (what the JSON form holds).
 * @param file - The target file (replaced if it exists: the caller decides).
 * @param form - The form.
 * @returns The file's size in bytes.
 */
export async function writeReportForm(
  report: SignedReport,
  json: string,
  file: string,
  form: ReportForm,
): Promise<number> {
  const target = path.resolve(file);
  const temporary = path.join(path.dirname(target), `.${path.basename(target)}.${randomBytes(6).toString('hex')}.tmp`);
  try {
    if (form === 'json') {
      fs.writeFileSync(temporary, json, { flag: 'wx' });
    } else {
      const out = fs.createWriteStream(temporary, { flags: 'wx' });
      const closed = once(out, 'close');
      if (form === 'html') {
        // The JSON form's text is the JCS of the report and a newline.
        await writeReportHtml(report, out, json.trimEnd());
        out.end();
      } else {
        await (
          await pdfWriter()
        )(report, json, out);
      }
      await closed;
    }
    fs.renameSync(temporary, target);
    return fs.statSync(target).size;
  } finally {
    fs.rmSync(temporary, { force: true });
  }
}

/**
 * A report in a form, in memory (for the app's downloads and preview).
 *
 * @param report - The signed report.
 * @param json - Its JSON text.
 * @param form - The form.
 * @returns The bytes.
 */
export async function renderReportBytes(report: SignedReport, json: string, form: ReportForm): Promise<Uint8Array> {
  if (form === 'json') return new TextEncoder().encode(json);
  if (form === 'html') return new TextEncoder().encode(Array.from(renderReportHtml(report, json.trimEnd())).join(''));
  const chunks: Buffer[] = [];
  const { PassThrough } = await import('node:stream');
  const sink = new PassThrough();
  sink.on('data', (chunk: Buffer) => chunks.push(chunk));
  const ended = once(sink, 'end');
  await (
    await pdfWriter()
  )(report, json, sink);
  await ended;
  return new Uint8Array(Buffer.concat(chunks));
}

/** The PDF writer, loaded on first use: pdfkit and its fonts are not needed by any other command. */
async function pdfWriter(): Promise<typeof WriteReportPdf> {
  return (await import('./pdf')).writeReportPdf;
}
