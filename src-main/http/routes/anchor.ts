/**
 * Anchoring routes (PROTOCOL section 8, spec 4 route 14): `POST /v1/anchor` queues a receipt's
 * canonical SHA-256 for the next batch and answers 202 with the pending record; `GET
 * /v1/anchor/<svc_anchor>` (the URN URL-encoded) answers the pending or the resolved record.
 *
 * POST needs a pro, scale or enterprise key (401 without a valid key, 403 for a free key) and
 * answers 503 `anchoring_unavailable` when the service runs without anchoring. GET is public:
 * a record names a digest's first 8 bytes and a transaction, nothing more.
 */
import type { FastifyInstance } from 'fastify';
import {
  ANCHOR_BODY_SCHEMA,
  lookupAnchor,
  requireAnchoringTier,
  submitAnchor,
  type AnchorRequest,
} from '../../operations/anchor-submit';
import { readBody } from '../body';
import { serviceContext } from '../context';
import { HttpError } from '../errors';

const PENDING_SCHEMA = {
  type: 'object',
  required: ['svc_anchor', 'batch_id', 'eta_seconds'],
  properties: {
    svc_anchor: { type: 'string' },
    batch_id: { type: 'string' },
    eta_seconds: { type: 'integer', minimum: 0 },
  },
} as const;

const RECORD_SCHEMA = {
  type: 'object',
  description: 'The pending record, or the resolved record of spec 2.6',
  required: ['svc_anchor', 'batch_id'],
  properties: {
    svc_anchor: { type: 'string' },
    batch_id: { type: 'string' },
    eta_seconds: { type: 'integer', minimum: 0 },
    network: { type: 'string' },
    block_height: { type: 'integer' },
    tx_hash: { type: 'string' },
    merkle_root: { type: 'string' },
    merkle_path: { type: 'array', items: { type: 'string' } },
    verified_at: { type: 'string' },
  },
} as const;

/** The anchoring routes, as a plugin. */
export async function anchorRoutes(app: FastifyInstance): Promise<void> {
  const context = serviceContext(app);
  app.post(
    '/v1/anchor',
    {
      schema: {
        summary: 'Queue a receipt’s canonical SHA-256 for anchoring (202 with the pending record)',
        tags: ['anchor'],
        body: ANCHOR_BODY_SCHEMA,
        security: [{ apiKey: [] }],
        response: { 202: PENDING_SCHEMA },
      },
    },
    async (request, reply) => {
      const caller = await context.requireCaller(request);
      requireAnchoringTier(caller);
      const body = readBody<AnchorRequest>(request, ANCHOR_BODY_SCHEMA);
      if (context.anchor === undefined)
        throw new HttpError(
          503,
          'anchoring_unavailable',
          'This service runs without anchoring (--no-anchor); nothing was queued.',
        );
      return reply.code(202).send(await submitAnchor(context.anchor, caller, body));
    },
  );

  app.get(
    '/v1/anchor/:svc_anchor',
    {
      schema: {
        summary: 'The pending or resolved record of an anchor URN (URL-encoded)',
        tags: ['anchor'],
        params: {
          type: 'object',
          required: ['svc_anchor'],
          properties: { svc_anchor: { type: 'string', maxLength: 512 } },
        },
        response: { 200: RECORD_SCHEMA },
      },
    },
    async (request) =>
      lookupAnchor(context.store, (request.params as { svc_anchor: string }).svc_anchor, context.now()),
  );
}
