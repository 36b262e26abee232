/**
 * The HTTP service of the interface (spec section 4; PROTOCOL sections 2, 3, 6-7, 9-11): a door
 * like the CLI and the app API, on Fastify.
 *
 * Every route reads the raw body itself (our strict parser sees duplicate names and number
 * spellings that JSON.parse would hide), works through src-main/operations, and answers errors
 * in PROTOCOL 10's shape, as do the framework and Node's HTTP parser for what they refuse before
 * any route runs (errors.ts). Bodies over 1 MiB are refused (413) from their declared length,
 * before they are read; query strings are read strictly (query.ts). Each route group is a plugin
 * of ./routes that reads the service's context from the instance (context.ts); OpenAPI 3.1 is
 * generated from the route schemas and served at /openapi.json.
 */
import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import Fastify, {
  type FastifyInstance,
  type FastifyReply,
  type FastifyRequest,
  type preValidationHookHandler,
} from 'fastify';
import rateLimit from '@fastify/rate-limit';
import swagger from '@fastify/swagger';
import Ajv from 'ajv';
import {
  createVerifyPool,
  MAX_POOL_SIZE,
  VerifyWorkerUnavailableError,
  type VerifyPool,
  type VerifyPoolEvent,
} from '../core/worker-pool';
import type { Workspace } from '../operations/workspace';
import {
  NODES_SEEN_WITHIN_MS,
  RENEW_EVERY_MS,
  workspaceServiceStore,
  type NodeRecord,
  type ServiceStore,
} from '../operations/service-store';
import { checkServiceKeys, newNodeId, type ServiceNode } from '../operations/service-node';
import { paymentKeySecretId } from '../operations/payments';
import type { PricingChain } from '../../src-shared/api/payments';
import type { AnchorBackend } from '../operations/anchor-submit';
import { authenticateKey } from '../operations/service-admin';
import { servedVerifierPage } from '../operations/verifier-page';
import { addJsonBodyParser } from '../operations/json-body';
import { stopEvidenceWorker } from '../operations/evidence';
import { DEFAULT_LOG_CHECKPOINT_MS, loadLogKey, openServiceLog, type ServiceLog } from '../operations/service-log';
import {
  DEFAULT_RATE_LIMIT_PER_MINUTE,
  FREE_RECEIPTS_PER_DAY,
  PRO_RECEIPTS_PER_MONTH,
} from '../operations/service-issue';
import { APP_VERSION } from '../version';
import { provideServiceContext, type ServiceContext, type ServiceSigner, type StatusDocument } from './context';
import { errorAnswer, HttpError } from './errors';
import { parseQuery, queryProblems } from './query';
import { anchorRoutes } from './routes/anchor';
import { keysStatusRoutes } from './routes/keys-status';
import { paymentRoutes } from './routes/payments';
import { pilotRoutes } from './routes/pilot';
import { pricingRubricRoutes } from './routes/pricing-rubric';
import { receiptRoutes } from './routes/receipts';
import { tenantRoutes } from './routes/tenants';
import { tlogRoutes } from './routes/tlog';
import { typedRoutes } from './routes/typed';
import { verifyRoutes } from './routes/verify';
import { wearableRoutes } from './routes/wearable';

/** Request bodies up to 1 MiB (PROTOCOL section 10). */
export const MAX_BODY_BYTES = 1024 * 1024;
/** Requests per minute per client address on every route, by default. */
export { DEFAULT_RATE_LIMIT_PER_MINUTE } from '../operations/service-issue';
// The quotas live with the operation that counts them, so the app's Service view reads the same numbers.
export { FREE_RECEIPTS_PER_DAY, PRO_RECEIPTS_PER_MONTH } from '../operations/service-issue';
export type { ServiceContext, ServiceSigner } from './context';
/** Requests remembered for the app's Service view. */
const RECENT_REQUESTS = 100;
/**
 * The longest path parameter the router reads: the documented 512 characters of an anchor URN
 * even with every character left escaped (%XX). Within it, each route's schema says what it
 * takes (400 with the parameter's name beyond that); longer is 414.
 */
const MAX_PARAM_LENGTH = 3 * 512;
/** What `GET /verifier` adds to the page's own policy: no page may frame it (a meta tag cannot say so). */
const VERIFIER_FRAME_ANCESTORS = "frame-ancestors 'none'";

/** A request the service answered (for the app's Service view; never a key or a body). */
export interface RequestRecord {
  at: number;
  method: string;
  route: string;
  status: number;
  ms: number;
}

export interface ServiceOptions {
  workspace: Workspace;
  /**
   * Where the service keeps its data: default the workspace's ledger (SQLite); a PostgreSQL
   * store for several nodes on one database (operations/service-store.ts). The caller closes it.
   */
  store?: ServiceStore;
  /**
   * This process among the store's nodes (default: a new id, started now). With PostgreSQL the
   * service refuses to start when its signing or log key differs from the database's
   * (operations/service-node.ts); it heartbeats every 5 s and /status lists the nodes seen in
   * the last 10 minutes.
   */
  node?: ServiceNode;
  signer: ServiceSigner;
  /** The clock (tests move it). Default: the system's. */
  now?: () => Date;
  rateLimitPerMinute?: number;
  freePerDay?: number;
  proPerMonth?: number;
  /** Where request log lines go (Fastify's pino logger); none by default. Keys and bodies are never logged. */
  logStream?: NodeJS.WritableStream;
  /** The anchoring engine; without it `POST /v1/anchor` answers 503 and tenant receipts carry `anchor: null`. */
  anchor?: AnchorBackend;
  /** Where API keys are bought (docs/payments.md): listed by `GET /pricing` under `chains`; none by default. */
  pricingChains?: readonly PricingChain[];
  /**
   * Worker threads that verify the verify route's requests and check the receipts the service
   * issues (0 to {@link MAX_POOL_SIZE}; default 0: the HTTP thread does both). The answers are
   * the same either way; with N workers the HTTP thread verifies one request in 4 × N itself.
   */
  verifyThreads?: number;
  /**
   * How long a request may take to arrive whole, headers and body, in ms; then 408
   * `request_timeout` and the connection closes (default {@link REQUEST_TIMEOUT_MS}). A client
   * that stops sending can neither hold a connection for ever nor keep the service from closing.
   */
  requestTimeoutMs?: number;
  /**
   * The tenants' logs (docs/logs.md, "The service's log"): `name`, the log name (default
   * `evroom.local/` and 16 hex digits of the log key's SHA-256); `checkpointMs`, how often the
   * logs that grew are signed (default {@link DEFAULT_LOG_CHECKPOINT_MS}). The log key is the
   * data folder's `service/log-key.json`, made on first start.
   */
  log?: { name?: string; checkpointMs?: number };
}

/** The built service, with what the app's Service view shows. */
export interface Service {
  app: FastifyInstance;
  /**
   * The worker threads that verify requests and issued receipts, when there are any (their
   * count is its `size`): closing it stops them, and the HTTP thread verifies instead.
   */
  verifyPool: VerifyPool | undefined;
  recentRequests(): RequestRecord[];
  close(): Promise<void>;
}

/**
 * One log line per change of the verification pool's state (never one per request): a worker
 * stopped (its requests in flight are verified on the HTTP thread, and it is replaced), no
 * worker runs (the HTTP thread verifies everything), workers run again. Starts are not logged.
 */
function logPoolEvent(app: FastifyInstance, event: VerifyPoolEvent): void {
  if (event.kind === 'worker_exit') {
    app.log.error(
      { worker: event.index, threadId: event.threadId, reason: event.reason, restartInMs: event.restartInMs },
      'verification worker stopped; its requests in flight are verified on the HTTP thread, and it is being replaced',
    );
  } else if (event.kind === 'unavailable') {
    app.log.warn('no verification worker is running: the HTTP thread verifies every request until one is back');
  } else if (event.kind === 'available') {
    app.log.info('verification workers are running again: requests go to them');
  }
}

/** The API key of `Authorization: Bearer <key>`; the scheme's name is case-insensitive (RFC 9110 section 11.1). */
function bearer(request: FastifyRequest): string | undefined {
  const header = request.headers.authorization;
  if (typeof header !== 'string') return undefined;
  const match = /^bearer +([^\s]+)$/i.exec(header);
  return match?.[1];
}

/**
 * Answers what Node's HTTP parser refused before any route saw it (headers over 16 KiB, a method
 * HTTP does not define, a malformed request line) in PROTOCOL 10's shape, then closes.
 */
function answerClientError(error: Error & { code?: string }, socket: Socket): void {
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  const answer = errorAnswer(error);
  if (!socket.writable) {
    socket.destroy();
    return;
  }
  const body = JSON.stringify(answer.body);
  socket.end(
    `HTTP/1.1 ${answer.status} ${STATUS_CODES[answer.status] ?? ''}\r\n` +
      `Content-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\n` +
      `Connection: close\r\n\r\n${body}`,
  );
}

/** The tenants' logs under the data folder's log key (made on first start); the key is wiped if the name is refused. */
function openLog(workspace: Workspace, name: string | undefined, store: ServiceStore): ServiceLog {
  const key = loadLogKey(workspace);
  try {
    return openServiceLog(workspace, key, { name, store });
  } catch (error) {
    key.seed.fill(0);
    throw error;
  }
}

/** How long a request may take to arrive whole by default: 30 s (1 MiB at about 35 KB/s). */
export const REQUEST_TIMEOUT_MS = 30_000;

/**
 * Builds the service (not yet listening).
 *
 * @param options - The workspace, the signer, limits.
 * @returns The Fastify app and the view of its recent requests.
 */
export async function buildService(options: ServiceOptions): Promise<Service> {
  const now = options.now ?? (() => new Date());
  const verifyThreads = options.verifyThreads ?? 0;
  const requestTimeoutMs = options.requestTimeoutMs ?? REQUEST_TIMEOUT_MS;
  if (!Number.isSafeInteger(requestTimeoutMs) || requestTimeoutMs < 1) {
    throw new RangeError('buildService: requestTimeoutMs must be a whole number of milliseconds from 1');
  }
  if (!Number.isSafeInteger(verifyThreads) || verifyThreads < 0 || verifyThreads > MAX_POOL_SIZE) {
    throw new RangeError(`buildService: verifyThreads must be a whole number from 0 to ${MAX_POOL_SIZE}`);
  }
  const checkpointMs = options.log?.checkpointMs ?? DEFAULT_LOG_CHECKPOINT_MS;
  if (!Number.isSafeInteger(checkpointMs) || checkpointMs < 1) {
    throw new RangeError('buildService: log.checkpointMs must be a whole number of milliseconds from 1');
  }
  const store = options.store ?? workspaceServiceStore(options.workspace);
  const log = openLog(options.workspace, options.log?.name, store);
  const node: ServiceNode = options.node ?? { id: newNodeId(), started_at: now().getTime() };
  try {
    await checkServiceKeys(
      store,
      // The payment key secret is made here on a first start, so the service/ folder copied to other nodes holds it.
      { signing: options.signer.key_id, log: log.keyId, payment: paymentKeySecretId(options.workspace) },
      node,
      now().getTime(),
    );
  } catch (error) {
    log.close();
    throw error;
  }
  const app = Fastify({
    logger:
      options.logStream === undefined
        ? false
        : {
            stream: options.logStream,
            // A request is logged by method and path only: never its headers (API keys), query or body.
            serializers: {
              req: (request) => ({ method: request.method, url: request.url.split('?')[0], remoteAddress: request.ip }),
            },
          },
    bodyLimit: MAX_BODY_BYTES,
    requestTimeout: requestTimeoutMs,
    // Node checks for requests past their time every this often (its default is 30 s, which
    // would let a stalled request run to twice the limit); its headers limit may not exceed the
    // request's, or requests in their body are never timed out.
    http: {
      connectionsCheckingInterval: Math.max(50, Math.min(5_000, Math.floor(requestTimeoutMs / 2))),
      requestTimeout: requestTimeoutMs,
      headersTimeout: Math.min(60_000, requestTimeoutMs),
    },
    routerOptions: { maxParamLength: MAX_PARAM_LENGTH, querystringParser: parseQuery },
    // A request that arrives while the service closes is 503, in PROTOCOL 10's shape (below).
    return503OnClosing: false,
    forceCloseConnections: 'idle',
    // A URL that does not decode, a path parameter over the limit: PROTOCOL 10's body too.
    frameworkErrors: (error, _request, reply) => {
      const answer = errorAnswer(error);
      void (reply as FastifyReply).code(answer.status).send(answer.body);
    },
    clientErrorHandler: answerClientError,
  });
  const recent: RequestRecord[] = [];

  // Body schemas document the routes (OpenAPI) and are checked by the routes themselves on the
  // strictly parsed body (body.ts); Fastify checks only paths and query strings.
  // Query names no route declares are refused before validation (query.ts), never removed.
  const partsValidator = new Ajv({
    coerceTypes: 'array',
    useDefaults: true,
    removeAdditional: false,
    allErrors: false,
  });
  app.setValidatorCompiler(({ schema, httpPart }) =>
    httpPart === 'body' ? () => true : partsValidator.compile(schema),
  );

  // Bodies arrive as bytes; each route parses them strictly. Any other media type is 415.
  app.removeAllContentTypeParsers();
  addJsonBodyParser(app, { bodyLimit: MAX_BODY_BYTES });

  let closing = false;
  app.addHook('preClose', (done) => {
    closing = true;
    done();
  });
  // Hooks in callback style: an async hook costs a promise per request on every route.
  app.addHook('onRequest', (request, _reply, done) => {
    if (closing) {
      done(
        new HttpError(503, 'unavailable', 'The service is shutting down; try again shortly.', {
          headers: { connection: 'close' },
        }),
      );
      return;
    }
    // A declared length over the limit is refused at once, before the body is read.
    const declared = request.headers['content-length'];
    if (declared !== undefined && /^\d+$/.test(declared) && Number(declared) > MAX_BODY_BYTES) {
      done(new HttpError(413, 'payload_too_large', 'The request body is larger than 1 MiB.'));
      return;
    }
    done();
  });
  // The query, strictly: a parameter the route does not declare, or one given twice, is a 400.
  // Each route gets its own check with the names it declares, read once here (a request's
  // routeOptions is built anew on every read); the not-found handler is no route and has none.
  app.addHook('onRoute', (route) => {
    const declared = (route.schema?.querystring as { properties?: Record<string, unknown> } | undefined)?.properties;
    const check: preValidationHookHandler = (request, _reply, done) => {
      const problems = queryProblems(request.query, declared ?? {});
      if (problems.length === 0) {
        done();
        return;
      }
      done(
        new HttpError(
          400,
          'invalid_request',
          `The query does not fit the route: ${problems.map((problem) => `${problem.path} ${problem.message}`).join('; ')}.`,
          { details: problems },
        ),
      );
    };
    const own = route.preValidation;
    route.preValidation = own === undefined ? check : [check, ...(Array.isArray(own) ? own : [own])];
  });
  app.addHook('onResponse', (request, reply, done) => {
    recent.push({
      at: Date.now(),
      method: request.method,
      route: request.routeOptions.url ?? request.url.split('?')[0] ?? '',
      status: reply.statusCode,
      ms: Math.round(reply.elapsedTime * 10) / 10,
    });
    if (recent.length > RECENT_REQUESTS) recent.splice(0, recent.length - RECENT_REQUESTS);
    done();
  });

  app.setErrorHandler(async (error, request, reply) => {
    const answer = errorAnswer(error);
    // A body whose client went away (its socket closed: a request timed out with 408, or the
    // client hung up) ends its stream 'aborted': no fault of the service, and no one to answer.
    const gone = request.raw.aborted && (error as { code?: unknown }).code === 'ECONNRESET';
    if (answer.internal && !gone)
      request.log.error({ ref: answer.internal.ref, err: answer.internal }, 'internal error');
    return reply.code(answer.status).headers(answer.headers).send(answer.body);
  });
  app.setNotFoundHandler(async (request, reply) =>
    reply.code(404).send({
      error: {
        code: 'not_found',
        message: `There is no route ${request.method} ${request.url.split('?')[0]}.`,
        details: [],
      },
    }),
  );

  await app.register(rateLimit, {
    max: options.rateLimitPerMinute ?? DEFAULT_RATE_LIMIT_PER_MINUTE,
    timeWindow: 60_000,
    errorResponseBuilder: (_request, context) => ({
      statusCode: 429,
      error: {
        code: 'rate_limited',
        message: `More than ${context.max} requests a minute from this address; try again in ${Math.ceil(context.ttl / 1000)} s.`,
        details: [],
      },
    }),
  });
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Evidence Room service',
        version: APP_VERSION,
        description: 'Receipts, verification and evidence bundles (spec section 4). Errors: PROTOCOL section 10.',
      },
      components: {
        securitySchemes: { apiKey: { type: 'http', scheme: 'bearer', description: 'svc_<tier>_… API key' } },
      },
    },
  });

  let statusDocument: StatusDocument | undefined;
  let verifyPool: VerifyPool | undefined;
  let nodes: readonly NodeRecord[] = [];
  const context: ServiceContext = {
    workspace: options.workspace,
    store,
    node,
    nodes: () => nodes,
    signer: options.signer,
    now,
    freePerDay: options.freePerDay ?? FREE_RECEIPTS_PER_DAY,
    proPerMonth: options.proPerMonth ?? PRO_RECEIPTS_PER_MONTH,
    anchor: options.anchor,
    pricingChains: options.pricingChains ?? [],
    log,
    get verifyPool() {
      return verifyPool;
    },
    issueWorkers(request) {
      return {
        // While no worker runs, the HTTP thread checks (the pool's events said so, once).
        pool: verifyPool?.available === true ? verifyPool : undefined,
        onPoolError: (error) => {
          // A worker that stopped with the check in flight was logged as it stopped; only a
          // worker's defect on this receipt is worth a line of its own.
          if (error instanceof VerifyWorkerUnavailableError) return;
          request.log.error(
            { err: error },
            'verification worker failed; checking the issued receipt on the HTTP thread',
          );
        },
      };
    },
    async requireCaller(request) {
      const presented = bearer(request);
      if (presented === undefined)
        throw new HttpError(401, 'unauthorized', 'This route needs an API key: Authorization: Bearer svc_…', {
          headers: { 'www-authenticate': 'Bearer' },
        });
      const result = await authenticateKey(context.store, presented, now());
      if ('expired_at' in result)
        throw new HttpError(
          401,
          'key_expired',
          `The API key's paid term ended at ${new Date(result.expired_at).toISOString()}. To renew, pay again with the same contact and tier (evroom apikeys buy, docs/payments.md): the term is extended and every key bought for it works again.`,
          { headers: { 'www-authenticate': 'Bearer error="invalid_token"' } },
        );
      if ('unknown' in result)
        throw new HttpError(401, 'unauthorized', 'The API key is unknown or revoked.', {
          headers: { 'www-authenticate': 'Bearer' },
        });
      return result.caller;
    },
    status() {
      if (statusDocument === undefined) throw new Error('status is not ready');
      return statusDocument;
    },
  };

  const routes: string[] = [];
  app.addHook('onRoute', (route) => {
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    for (const method of methods) if (method !== 'HEAD') routes.push(`${method} ${route.url}`);
  });
  // Every route plugin reads the context from the instance (context.ts), never from this module.
  provideServiceContext(app, context);
  await app.register(async (scope) => {
    await scope.register(receiptRoutes);
    await scope.register(verifyRoutes);
    await scope.register(typedRoutes);
    await scope.register(wearableRoutes);
    await scope.register(tenantRoutes);
    await scope.register(tlogRoutes);
    await scope.register(pricingRubricRoutes);
    await scope.register(pilotRoutes);
    await scope.register(anchorRoutes);
    await scope.register(paymentRoutes);
    await scope.register(keysStatusRoutes, {
      routes: () => routes,
      update: (document: StatusDocument) => (statusDocument = document),
    });
  });
  app.get('/openapi.json', { schema: { hide: true } }, async () => app.swagger());
  app.get(
    '/verifier',
    {
      schema: {
        summary: 'The browser reference verifier: one self-contained page that verifies documents and bundles locally',
        tags: ['verify'],
      },
    },
    async (_request, reply) => {
      // Its bytes, encoded once: a string of the page would be encoded again on every request.
      const page = await servedVerifierPage();
      // The page carries its own policy (default-src 'none'); the header says the same to the
      // browser, and what only a header can say: no page may frame this one.
      return reply
        .type('text/html; charset=utf-8')
        .header('cache-control', 'no-cache')
        .header('content-security-policy', `${page.policy}; ${VERIFIER_FRAME_ANCESTORS}`)
        .header('x-content-type-options', 'nosniff')
        .send(page.bytes);
    },
  );
  // The verify route's workers start last, once nothing else can fail, and stop with the app.
  if (verifyThreads > 0) {
    verifyPool = createVerifyPool({ size: verifyThreads, onEvent: (event) => logPoolEvent(app, event) });
    app.addHook('onClose', async () => verifyPool?.close());
  }
  // The heartbeat: every RENEW_EVERY_MS this node says it is alive and reads the nodes /status
  // lists. A database that is down is logged once; the beats go on and recover with it.
  let heartbeatTimer: NodeJS.Timeout | undefined;
  let beating = false;
  let beatFailing = false;
  const beat = async (): Promise<void> => {
    if (beating) return;
    beating = true;
    try {
      const at = now().getTime();
      await store.cluster.heartbeat({ id: node.id, started_at: node.started_at, version: APP_VERSION }, at);
      nodes = await store.cluster.listNodes(at - NODES_SEEN_WITHIN_MS);
      if (beatFailing) app.log.info('the heartbeat reaches the database again');
      beatFailing = false;
    } catch (error) {
      if (!beatFailing) app.log.error({ err: error }, 'the heartbeat failed; trying again every 5 s');
      beatFailing = true;
    } finally {
      beating = false;
    }
  };
  app.addHook('onReady', async () => {
    await beat();
    heartbeatTimer = setInterval(() => void beat(), RENEW_EVERY_MS);
    heartbeatTimer.unref();
  });
  app.addHook('onClose', async () => clearInterval(heartbeatTimer));
  // The thread that writes tenants' evidence (started by the first such request) ends with it.
  app.addHook('onClose', async () => stopEvidenceWorker());
  // Checkpoints of the logs that grew, every checkpointMs and once more as the service closes
  // (after the requests in flight), so every receipt it issued is under a signed checkpoint.
  // A tick while the last one still signs (a slow database) is skipped.
  let checkpointTimer: NodeJS.Timeout | undefined;
  let signing: Promise<void> | undefined;
  const signGrown = (): Promise<void> => {
    signing ??= log
      .signGrown(now())
      .then(
        () => undefined,
        (error: unknown) => {
          app.log.error({ err: error }, 'signing the logs’ checkpoints failed; trying again at the next tick');
        },
      )
      .finally(() => {
        signing = undefined;
      });
    return signing;
  };
  app.addHook('onReady', async () => {
    checkpointTimer = setInterval(() => void signGrown(), checkpointMs);
    checkpointTimer.unref();
  });
  app.addHook('onClose', async () => {
    clearInterval(checkpointTimer);
    // The tick under way, if any, then one more that sees every receipt stored before the close.
    await signing;
    await signGrown();
    log.close();
  });
  try {
    await app.ready();
  } catch (error) {
    log.close();
    await verifyPool?.close();
    throw error;
  }

  return {
    app,
    verifyPool,
    recentRequests: () => [...recent].reverse(),
    close: () => app.close(),
  };
}
