import { deflateSync } from 'node:zlib';
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import PDFDocument from 'pdfkit';
import { looksLikePdf, PdfAttachmentError, pdfAttachments } from './pdf-attachment';

/** A classic PDF from object bodies (1-based), with a correct cross-reference table. */
function classicPdf(objects: (string | Buffer)[], trailerExtra = ''): Buffer {
  const parts: Buffer[] = [Buffer.from('%PDF-1.7\n%\xE2\xE3\xCF\xD3\n', 'latin1')];
  let length = parts[0]!.length;
  const offsets: number[] = [];
  objects.forEach((body, index) => {
    offsets.push(length);
    const head = Buffer.from(`${index + 1} 0 obj\n`, 'latin1');
    const content = typeof body === 'string' ? Buffer.from(body, 'latin1') : body;
    const tail = Buffer.from('\nendobj\n', 'latin1');
    parts.push(head, content, tail);
    length += head.length + content.length + tail.length;
  });
  const xref = [`xref\n0 ${objects.length + 1}\n0000000000 65535 f \n`];
  for (const offset of offsets) xref.push(`${String(offset).padStart(10, '0')} 00000 n \n`);
  xref.push(`trailer\n<< /Size ${objects.length + 1} /Root 1 0 R ${trailerExtra}>>\nstartxref\n${length}\n%%EOF\n`);
  parts.push(Buffer.from(xref.join(''), 'latin1'));
  return Buffer.concat(parts);
}

function stream(dictionary: string, data: Buffer): Buffer {
  return Buffer.concat([
    Buffer.from(`<< ${dictionary} /Length ${data.length} >>\nstream\n`, 'latin1'),
    data,
    Buffer.from('\nendstream', 'latin1'),
  ]);
}

/** A catalog with one attached file: objects 1 catalog, 2 filespec, 3 the file stream. */
function oneAttachment(fileStream: Buffer, name = '(report.json)'): Buffer {
  return classicPdf([
    '<< /Type /Catalog /Names << /EmbeddedFiles << /Names [' + name + ' 2 0 R] >> >> >>',
    '<< /Type /Filespec /F (report.json) /UF (report.json) /AFRelationship /Source /EF << /F 3 0 R >> >>',
    fileStream,
  ]);
}

async function pdfkitWithAttachment(data: Buffer): Promise<Buffer> {
  const doc = new PDFDocument({ autoFirstPage: true });
  const sink = new PassThrough();
  const chunks: Buffer[] = [];
  sink.on('data', (chunk: Buffer) => chunks.push(chunk));
  const ended = new Promise((resolve) => sink.on('end', resolve));
  doc.pipe(sink);
  doc.file(data, {
    name: 'rpt.json',
    type: 'application/json',
    relationship: 'Source',
  } as PDFKit.Mixins.PDFAttachmentOptions);
  doc.text('hello');
  doc.end();
  await ended;
  return Buffer.concat(chunks);
}

describe('reading the files a PDF attaches', () => {
  it('reads what pdfkit attaches: name, relationship and the inflated bytes', async () => {
    const data = Buffer.from(`{"a":"${'x'.repeat(5000)}"}\n`);
    const pdf = await pdfkitWithAttachment(data);
    expect(looksLikePdf(pdf)).toBe(true);
    const files = pdfAttachments(pdf);
    expect(files).toHaveLength(1);
    expect(files[0]).toMatchObject({ name: 'rpt.json', relationship: 'Source' });
    expect(Buffer.from(files[0]!.data).equals(data)).toBe(true);
  });

  it('reads a plain stream, a FlateDecode stream, an indirect /Length, and a PDF without attachments', () => {
    expect(
      Buffer.from(pdfAttachments(oneAttachment(stream('/Type /EmbeddedFile', Buffer.from('{}'))))[0]!.data).toString(),
    ).toBe('{}');
    const flate = oneAttachment(stream('/Type /EmbeddedFile /Filter [/FlateDecode]', deflateSync(Buffer.from('[1]'))));
    expect(Buffer.from(pdfAttachments(flate)[0]!.data).toString()).toBe('[1]');
    const indirect = classicPdf([
      '<< /Type /Catalog /Names << /EmbeddedFiles << /Kids [4 0 R] >> >> >>',
      '<< /Type /Filespec /F (a.json) /EF << /F 3 0 R >> >>',
      Buffer.from('<< /Length 5 0 R >>\nstream\n{"b":1}\nendstream', 'latin1'),
      '<< /Names [<612e6a736f6e> 2 0 R] >>',
      '7',
    ]);
    const files = pdfAttachments(indirect);
    expect(files.map((file) => [file.name, Buffer.from(file.data).toString()])).toEqual([['a.json', '{"b":1}']]);
    expect(pdfAttachments(classicPdf(['<< /Type /Catalog >>']))).toEqual([]);
  });

  it('refuses hostile and foreign PDFs with a sentence, never a crash or an exhaustion', () => {
    const refused = (bytes: Buffer, message: RegExp, limits = {}): void => {
      let thrown: unknown;
      try {
        pdfAttachments(bytes, limits);
      } catch (error) {
        thrown = error;
      }
      expect(thrown).toBeInstanceOf(PdfAttachmentError);
      expect((thrown as Error).message).toMatch(message);
    };
    refused(Buffer.from('hello'), /not a PDF/);
    const good = oneAttachment(stream('/Type /EmbeddedFile', Buffer.from('{}')));
    refused(good.subarray(0, good.length - 40), /startxref|outside the file|cross-reference/);
    // startxref pointing at itself, past the end, at an object (a cross-reference stream).
    refused(Buffer.from('%PDF-1.7\nstartxref\n9999999\n%%EOF'), /outside the file/);
    refused(
      Buffer.from('%PDF-1.7\n1 0 obj\n<< /Type /XRef >>\nendobj\nstartxref\n9\n%%EOF'),
      /cross-references in a stream/,
    );
    // A /Prev loop.
    const looped = Buffer.from(
      '%PDF-1.4\nxref\n0 1\n0000000000 65535 f \ntrailer\n<< /Size 1 /Prev 9 /Root 1 0 R >>\nstartxref\n9\n%%EOF',
    );
    refused(looped, /loops/);
    // A /Length that runs past the end, and one that does not land on endstream.
    refused(oneAttachment(Buffer.from('<< /Length 99999 >>\nstream\n{}\nendstream', 'latin1')), /past the end/);
    refused(oneAttachment(Buffer.from('<< /Length 1 >>\nstream\n{}\nendstream', 'latin1')), /not closed by endstream/);
    // Another filter, a predictor, corrupt deflate data, a decompression bomb.
    refused(oneAttachment(stream('/Filter /LZWDecode', Buffer.from('xx'))), /only \/FlateDecode/);
    refused(
      oneAttachment(stream('/Filter /FlateDecode /DecodeParms << /Predictor 12 >>', deflateSync(Buffer.from('{}')))),
      /predictor/,
    );
    refused(oneAttachment(stream('/Filter /FlateDecode', Buffer.from('not deflate'))), /not valid \/FlateDecode/);
    refused(
      oneAttachment(stream('/Filter /FlateDecode', deflateSync(Buffer.alloc(4 * 1024 * 1024)))),
      /decodes to more than 1048576 bytes/,
      { maxFileBytes: 1024 * 1024 },
    );
    // Nesting without end, an encrypted file, a name tree that refers to itself.
    refused(oneAttachment(Buffer.from(`${'['.repeat(5000)}`, 'latin1')), /nested too deeply|ends inside/);
    refused(classicPdf(['<< /Type /Catalog >>'], '/Encrypt 2 0 R '), /encrypted/);
    const selfKids = classicPdf(['<< /Type /Catalog /Names << /EmbeddedFiles 2 0 R >> >>', '<< /Kids [2 0 R] >>']);
    refused(selfKids, /name tree is too deep/);
    // Too many files.
    const many = classicPdf([
      `<< /Type /Catalog /Names << /EmbeddedFiles << /Names [${Array.from({ length: 5 }, (_, index) => `(f${index}.json) 2 0 R`).join(' ')}] >> >> >>`,
      '<< /Type /Filespec /F (x) /EF << /F 3 0 R >> >>',
      stream('', Buffer.from('{}')),
    ]);
    refused(many, /more than 3 files/, { maxFiles: 3 });
  });
});
