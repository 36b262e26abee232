/**
 * The verification worker: runs inside a worker thread started by the pool (worker-pool.ts).
 *
 * It builds one node:crypto provider and one VerifyContext from `workerData`, then answers
 * each batch message with one VerifiedReceipt per document (or, in report mode, one
 * ReportResult: the report as `evroom verify` prints it; in files mode it reads each named file
 * first, and answers why one could not be read in its place). Importing this module anywhere but a
 * pool worker does nothing.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { createVerifyContext } from '../../src-shared/verify/context';
import { createNodeCryptoProvider } from './node-crypto-provider';
import { toVerifiedReceipt, verifyReceiptBytes, type VerifiedReceipt } from './receipt-facts';
import { DocumentReadError, readDocumentFile } from './read-document';
import { verifyReportBytes } from './verify-report';
import type { FileReportResult, ReportResult, VerifyRequest, VerifyResponse, VerifyWorkerData } from './worker-pool';

function startWorker(port: NonNullable<typeof parentPort>, data: VerifyWorkerData): void {
  const context = createVerifyContext(createNodeCryptoProvider(), {
    pinned: data.pinned,
    advertised: data.advertised,
    secrets: data.secrets,
    now: new Date(data.now),
  });
  port.on('message', (request: VerifyRequest) => {
    let response: VerifyResponse;
    try {
      if (request.mode === 'files') {
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
    port.postMessage(response);
  });
}

if (parentPort !== null && typeof workerData === 'object' && workerData !== null) {
  startWorker(parentPort, workerData as VerifyWorkerData);
}
