/**
 * The export worker: writes evidence bundles on a thread of its own (exportBundle with
 * `worker: true`), each from its own snapshot of the ledger file, and posts each job's progress
 * and then its result or error. The calling thread writes the audit rows. Jobs may overlap.
 * Importing this module anywhere but the export worker does nothing.
 */
import { isMainThread, parentPort } from 'node:worker_threads';
import { sendableError, writeBundle, type ExportJob, type ExportWorkerMessage } from './export-bundle';

const port = parentPort;
if (!isMainThread && port !== null) {
  const post = (message: ExportWorkerMessage): void => port.postMessage(message);
  port.on('message', (job: ExportJob) => {
    if (typeof job !== 'object' || job === null || typeof job.id !== 'number' || typeof job.ledgerFile !== 'string')
      return;
    writeBundle(job.ledgerFile, job.options, (event) => post({ id: job.id, kind: 'progress', event }))
      .then(
        (result) => post({ id: job.id, kind: 'done', result }),
        (error: unknown) => post({ id: job.id, kind: 'failed', error: sendableError(error) }),
      )
      .finally(() => job.options.signingKey?.seed.fill(0));
  });
}
