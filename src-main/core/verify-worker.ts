/**
 * The verification worker: runs inside a worker thread started by the pool (worker-pool.ts).
 *
 * It builds one node:crypto provider and one VerifyContext from `workerData`, then answers
 * each batch message with one VerifiedReceipt per document (or, in report mode, one
 * ReportResult: the report as `evroom verify` prints it; in files mode it reads each named file
 * first, and answers why one could not be read in its place). Importing this module anywhere but a
 * pool worker does nothing.
 */
import { hash } from 'node:crypto';
import { parentPort, workerData } from 'node:worker_threads';
import { failpoint } from './failpoints';
import type { VerifyContext } from '../../src-shared/verify/context';
import { createVerifyContext } from '../../src-shared/verify/context';
import { createNodeCryptoProvider } from './node-crypto-provider';
import { toVerifiedReceipt, verifyReceiptBytes, type VerifiedReceipt } from './receipt-facts';
import { DocumentReadError, readDocumentFile } from './read-document';
import { verifyReportBytes } from './verify-report';
import { verifyRequestBytes, type RequestKeys } from './verify-request';
import { KeyFileError } from '../../src-shared/verify/key-file';
import { BundleError, printableName } from '../../src-shared/evidence/errors';
import { entryData } from './entry-data';
import type {
  EntriesRequest,
  EntriesResult,
  FileReportResult,
  ReceiptKeys,
  ReportResult,
  SingleAnswer,
  SingleItem,
  VerifyRequest,
  VerifyResponse,
  VerifyWorkerData,
} from './worker-pool';

const DIGEST_BYTES = 32;

/**
 * Mode `entries`: each zip entry's stored bytes made into its data and checked (entry-data.ts),
 * hashed, and either answered as digests or compared with the expected digest and verified.
 * The first broken rule ends the batch as `failure`; what came before it is answered.
 */
function answerEntries(
  request: EntriesRequest,
  context: VerifyContext,
): { result: EntriesResult; transfer: ArrayBuffer[] } {
  const bytes = new Uint8Array(request.bytes);
  const count = request.names.length;
  const digests = request.verify ? undefined : new Uint8Array(count * DIGEST_BYTES);
  const out = request.out === undefined ? undefined : new Uint8Array(request.out);
  const dataOffsets = new Uint32Array(count + 1);
  const results: EntriesResult['results'] = request.verify ? [] : undefined;
  const expected = request.expected;
  let failure: EntriesResult['failure'];
  let written = 0;
  for (let index = 0; index < count; index += 1) {
    const name = request.names[index] as string;
    let data: Uint8Array;
    try {
      data = entryData(
        bytes.subarray(request.offsets[index], request.offsets[index + 1]),
        {
          name,
          compressionMethod: request.methods[index] as number,
          uncompressedSize: request.sizes[index] as number,
          crc32: request.crcs[index] as number,
        },
        request.maxEntryBytes,
      );
    } catch (error) {
      if (!(error instanceof BundleError)) throw error;
      failure = {
        index,
        code: error.code,
        message: error.message,
        ...(error.entry === undefined ? {} : { entry: error.entry }),
      };
      break;
    }
    const digest = hash('sha256', data, 'buffer');
    if (digests !== undefined) {
      digests.set(digest, index * DIGEST_BYTES);
      continue;
    }
    if (expected === undefined || out === undefined || results === undefined)
      throw new Error('entries: verify needs expected digests and an out buffer');
    if (digest.compare(expected, index * DIGEST_BYTES, (index + 1) * DIGEST_BYTES) !== 0) {
      const shown = printableName(name);
      failure = {
        index,
        code: 'zip_changed',
        message: `Entry "${shown}" changed on disk during the import.`,
        entry: shown,
      };
      break;
    }
    out.set(data, written);
    const stored = out.subarray(written, written + data.length);
    written += data.length;
    dataOffsets[index + 1] = written;
    results.push(toVerifiedReceipt(verifyReceiptBytes(stored, context)));
  }
  const result: EntriesResult = {};
  const transfer: ArrayBuffer[] = [];
  if (digests !== undefined) {
    result.digests = digests;
    transfer.push(digests.buffer);
  }
  if (out !== undefined) {
    result.data = out;
    result.dataOffsets = dataOffsets;
    result.results = results;
    transfer.push(out.buffer as ArrayBuffer, dataOffsets.buffer);
  }
  if (failure !== undefined) result.failure = failure;
  return { result, transfer };
}

function startWorker(port: NonNullable<typeof parentPort>, data: VerifyWorkerData): void {
  const context = createVerifyContext(createNodeCryptoProvider(), {
    pinned: data.pinned,
    advertised: data.advertised,
    secrets: data.secrets,
    now: new Date(data.now),
  });
  /** The keys of each kind of single document, as last sent (mode `singles`). */
  let requestKeys: RequestKeys = { pinned: [], advertised: [], listed: [] };
  let receiptKeys: ReceiptKeys = { pinned: [], advertised: [] };
  /** One single document's answer; a defect is answered for that document alone. */
  const answerSingle = (item: SingleItem): SingleAnswer => {
    try {
      if (item.kind === 'request') {
        if (item.keys !== undefined) requestKeys = item.keys;
        try {
          const report = verifyRequestBytes(
            new Uint8Array(item.bytes),
            context.crypto,
            requestKeys,
            new Date(item.now),
          );
          return { request: { json: JSON.stringify(report) } };
        } catch (error) {
          if (!(error instanceof KeyFileError)) throw error;
          return { request: { keyError: { path: error.path, message: error.message } } };
        }
      }
      if (item.keys !== undefined) receiptKeys = item.keys;
      const receiptContext = createVerifyContext(context.crypto, {
        pinned: receiptKeys.pinned,
        advertised: receiptKeys.advertised,
        secrets: [],
        now: new Date(item.now),
      });
      return { receipt: toVerifiedReceipt(verifyReceiptBytes(new Uint8Array(item.bytes), receiptContext)) };
    } catch (error) {
      return { error: error instanceof Error ? error.message : String(error) };
    }
  };
  port.on('message', (request: VerifyRequest) => {
    failpoint('verify-worker.request');
    let response: VerifyResponse;
    let transfer: ArrayBuffer[] = [];
    try {
      if (request.mode === 'singles') {
        response = { id: request.id, singles: request.items.map(answerSingle) };
      } else if (request.mode === 'entries') {
        const answered = answerEntries(request, context);
        transfer = answered.transfer;
        response = { id: request.id, entries: answered.result };
      } else if (request.mode === 'files') {
        const results: FileReportResult[] = [];
        for (const path of request.paths) {
          let bytes: Uint8Array;
          try {
            bytes = readDocumentFile(path);
          } catch (error) {
            if (!(error instanceof DocumentReadError)) throw error;
            results.push({ error: error.message });
            continue;
          }
          const report = verifyReportBytes(bytes, context);
          results.push({ json: JSON.stringify(report), status: report.status, trust: report.trust.status });
        }
        response = { id: request.id, results };
      } else if (request.mode === 'report') {
        const bytes = new Uint8Array(request.bytes);
        const results: ReportResult[] = [];
        for (let index = 0; index + 1 < request.offsets.length; index += 1) {
          const report = verifyReportBytes(bytes.subarray(request.offsets[index], request.offsets[index + 1]), context);
          results.push({ json: JSON.stringify(report), status: report.status, trust: report.trust.status });
        }
        response = { id: request.id, results };
      } else {
        const bytes = new Uint8Array(request.bytes);
        const results: VerifiedReceipt[] = [];
        for (let index = 0; index + 1 < request.offsets.length; index += 1) {
          const start = request.offsets[index] as number;
          const end = request.offsets[index + 1] as number;
          results.push(toVerifiedReceipt(verifyReceiptBytes(bytes.subarray(start, end), context)));
        }
        response = { id: request.id, results };
      }
    } catch (error) {
      // verifyReceiptBytes does not throw for any document; this is a defect, reported as one.
      response = { id: request.id, error: error instanceof Error ? error.message : String(error) };
    }
    port.postMessage(response, transfer);
  });
}

if (parentPort !== null && typeof workerData === 'object' && workerData !== null) {
  startWorker(parentPort, workerData as VerifyWorkerData);
}
