/**
 * `POST /v1/receipt/verify` (alias `/v1/receipts/verify`): any supported document, or
 * `{document, keys?}`, answered 200 with its report whatever the status (PROTOCOL section 3).
 *
 * The body is read with our strict parser: a duplicate member name is a MALFORMED report, never
 * a silent last-wins. Keys given with the document, and the service's own listed keys, can
 * check signatures; they never make trust `trusted` (only the operator's pinned keys do).
 *
 * One key id names one key (PROTOCOL section 0): keys given with the document that define a
 * key_id of the trust store or of the service's listed keys as another key are refused (400
 * invalid_request, the pointer into `keys`), as `evroom verify` refuses such key files, so the
 * same document and keys never verify differently depending on where a key came from.
 *
 * The work is core/verify-request.ts's. With a verification pool (the service's
 * `verifyThreads`), it runs on a worker thread for most requests (this thread takes a share, see
 * {@link HTTP_THREAD_SHARE_PER_WORKER}); without one, or while no worker runs (they are being
 * replaced), it runs here. Both give the same answer, byte for byte.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { KeyEntry } from '../../../src-shared/verify/context';
import { KeyFileError } from '../../../src-shared/verify/key-file';
import type { Report } from '../../../src-shared/verify/report';
import { verifyRequestBytes, type RequestKeys } from '../../core/verify-request';
import { VerifyWorkerUnavailableError } from '../../core/worker-pool';
import { workspaceTrustKeys } from '../../operations/workspace';
import { bodyBytes } from '../body';
import { listedKeys, serviceContext, type ServiceContext } from '../context';
import { HttpError } from '../errors';

/**
 * The keys a verify request is judged with: one object per state of the trust store (and list
 * of service keys), so a verification worker is sent them again only after they changed.
 */
const requestKeysCache = new WeakMap<object, { listed: KeyEntry[]; keys: RequestKeys }>();

function requestKeys(context: ServiceContext): RequestKeys {
  const trust = workspaceTrustKeys(context.workspace);
  const listed = listedKeys(context);
  const cached = requestKeysCache.get(trust);
  if (cached !== undefined && cached.listed === listed) return cached.keys;
  const keys: RequestKeys = { pinned: trust.pinned, advertised: [...trust.advertised, ...listed], listed };
  requestKeysCache.set(trust, { listed, keys });
  return keys;
}

/** The 400 a key file sent with a document earns (PROTOCOL 10 body, the pointer into the request). */
function keysRefused(error: { path: string; message: string }): HttpError {
  return new HttpError(400, 'invalid_request', `keys: ${error.message}`, {
    details: [{ path: `/keys${error.path}`, message: error.message }],
  });
}

/**
 * A verify request's report, verified on this thread (see core/verify-request.ts).
 *
 * @throws HttpError 400 when `keys` is not a key file, or defines a key_id of the trust store or
 *   of the service's keys as another key
 */
export function verifyRequest(bytes: Uint8Array, context: ServiceContext): Report {
  try {
    return verifyRequestBytes(bytes, context.workspace.crypto, requestKeys(context), context.now());
  } catch (error) {
    if (error instanceof KeyFileError) throw keysRefused(error);
    throw error;
  }
}

/**
 * With N verification workers, the HTTP thread verifies one request in every
 * `HTTP_THREAD_SHARE_PER_WORKER * N` itself. Reading and answering a request costs it a good part
 * of what verifying one costs, so with few workers it would otherwise idle while they queue: on
 * two cores with one worker this took the route from about 3,200 to about 3,600-4,300 requests a
 * second (bench/README.md). With many workers its share is small.
 */
export const HTTP_THREAD_SHARE_PER_WORKER = 4;

/** The verify route and its alias, as a plugin. */
export async function verifyRoutes(app: FastifyInstance): Promise<void> {
  const context = serviceContext(app);
  let turn = 0;
  const handler = async (request: FastifyRequest, reply: FastifyReply) => {
    const bytes = bodyBytes(request);
    const pool = context.verifyPool;
    // No worker running (none configured, the pool closed, or every worker waiting to be
    // replaced): this thread verifies, without a line per request (the pool's events are logged).
    if (pool === undefined || !pool.available) return verifyRequest(bytes, context);
    turn = (turn + 1) % (pool.size * HTTP_THREAD_SHARE_PER_WORKER);
    if (turn === 0) return verifyRequest(bytes, context);
    let answer;
    try {
      answer = await pool.request(bytes, requestKeys(context), context.now());
    } catch (error) {
      // A worker that stopped with this request (logged once, as it stopped) or failed on it (a
      // defect, logged here) costs speed, not answers: verify here.
      if (!(error instanceof VerifyWorkerUnavailableError))
        request.log.error({ err: error }, 'verification worker failed; verifying on the HTTP thread');
      return verifyRequest(bytes, context);
    }
    if ('keyError' in answer) throw keysRefused(answer.keyError);
    // The report as the worker wrote it: what Fastify would write for the object.
    return reply.type('application/json; charset=utf-8').send(answer.json);
  };
  const schema = {
    summary: 'Verify any supported document, or {document, keys?}; 200 with the report',
    tags: ['verify'],
    body: {},
  };
  app.post('/v1/receipt/verify', { schema }, handler);
  app.post('/v1/receipts/verify', { schema: { ...schema, summary: 'Alias of /v1/receipt/verify' } }, handler);
}
