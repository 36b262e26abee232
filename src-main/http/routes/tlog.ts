/**
 * A tenant's transparency log (docs/logs.md, "The service's log"; docs/service.md): the signed
 * checkpoint (C2SP tlog-checkpoint, with the cosignatures witnesses gave it), RFC 9162 inclusion
 * and consistency proofs at sizes the service signed, and witnesses' cosignatures. Every route
 * takes the tenant's API key (403 for another tenant's).
 */
import type { FastifyInstance } from 'fastify';
import { MAX_COSIGNED_CHECKPOINT_LENGTH, MAX_VKEY_LENGTH } from '../../operations/service-log';
import { readBody } from '../body';
import { serviceContext } from '../context';
import { HttpError } from '../errors';
import { TENANT_PARAMS, tenantCaller } from '../tenant-caller';

/** A tree size or leaf index in a query: decimal, no sign, no leading zero, a safe integer. */
const WHOLE = { type: 'string', pattern: '^(0|[1-9][0-9]{0,15})$', description: 'a whole number' } as const;

const PROOF_QUERY = {
  type: 'object',
  additionalProperties: false,
  required: ['index', 'size'],
  properties: { index: WHOLE, size: WHOLE },
} as const;

const CONSISTENCY_QUERY = {
  type: 'object',
  additionalProperties: false,
  required: ['from', 'to'],
  properties: { from: WHOLE, to: WHOLE },
} as const;

/** The body of POST /tenants/:id/log/cosignatures. */
export const COSIGNATURE_BODY_SCHEMA = {
  type: 'object',
  additionalProperties: false,
  required: ['vkey', 'checkpoint'],
  properties: {
    vkey: {
      type: 'string',
      minLength: 1,
      maxLength: MAX_VKEY_LENGTH,
      description: 'the witness’s note verifier key, NAME+hex8+base64(0x04 || Ed25519 public key)',
    },
    checkpoint: {
      type: 'string',
      minLength: 1,
      maxLength: MAX_COSIGNED_CHECKPOINT_LENGTH,
      description: 'a checkpoint the service signed (same text), carrying the witness’s cosignature line',
    },
  },
} as const;

const HASHES = { type: 'array', items: { type: 'string', pattern: '^[0-9a-f]{64}$' } } as const;

/** A query number, checked as a safe integer (the schema allows up to 16 digits). */
function whole(value: string, name: string): number {
  const number = Number(value);
  if (!Number.isSafeInteger(number))
    throw new HttpError(400, 'invalid_request', `${name} is larger than the largest tree size.`, {
      details: [{ path: `?${name}`, message: 'is too large' }],
    });
  return number;
}

/** The log routes, as a plugin. */
export async function tlogRoutes(app: FastifyInstance): Promise<void> {
  const context = serviceContext(app);

  app.get(
    '/tenants/:id/log/checkpoint',
    {
      schema: {
        summary:
          'The newest signed checkpoint of the tenant’s log (C2SP tlog-checkpoint, text/plain), with the cosignatures it was given; it covers every receipt issued before the request',
        tags: ['tenants'],
        params: TENANT_PARAMS,
        security: [{ apiKey: [] }],
      },
    },
    async (request, reply) => {
      const caller = await tenantCaller(context, request);
      const checkpoint = await context.log.freshCheckpoint(caller.tenant.id, context.now());
      return reply
        .type('text/plain; charset=utf-8')
        .header('cache-control', 'no-cache')
        .send(await context.log.servedNote(checkpoint));
    },
  );

  app.get(
    '/tenants/:id/log/proof',
    {
      schema: {
        summary: 'RFC 9162 inclusion proof of leaf index in the tree of size (a size the service signed)',
        tags: ['tenants'],
        params: TENANT_PARAMS,
        querystring: PROOF_QUERY,
        security: [{ apiKey: [] }],
        response: {
          200: {
            type: 'object',
            required: ['index', 'size', 'hashes'],
            properties: { index: { type: 'integer' }, size: { type: 'integer' }, hashes: HASHES },
          },
        },
      },
    },
    async (request) => {
      const caller = await tenantCaller(context, request);
      const query = request.query as { index: string; size: string };
      return context.log.inclusion(caller.tenant.id, whole(query.index, 'index'), whole(query.size, 'size'));
    },
  );

  app.get(
    '/tenants/:id/log/consistency',
    {
      schema: {
        summary: 'RFC 9162 consistency proof from tree size from to tree size to (a size the service signed)',
        tags: ['tenants'],
        params: TENANT_PARAMS,
        querystring: CONSISTENCY_QUERY,
        security: [{ apiKey: [] }],
        response: {
          200: {
            type: 'object',
            required: ['from', 'to', 'hashes'],
            properties: { from: { type: 'integer' }, to: { type: 'integer' }, hashes: HASHES },
          },
        },
      },
    },
    async (request) => {
      const caller = await tenantCaller(context, request);
      const query = request.query as { from: string; to: string };
      return context.log.consistency(caller.tenant.id, whole(query.from, 'from'), whole(query.to, 'to'));
    },
  );

  app.post(
    '/tenants/:id/log/cosignatures',
    {
      schema: {
        summary:
          'A witness’s cosignature (C2SP tlog-cosignature) of a checkpoint the service signed; answers that checkpoint as now served (text/plain)',
        tags: ['tenants'],
        params: TENANT_PARAMS,
        body: COSIGNATURE_BODY_SCHEMA,
        security: [{ apiKey: [] }],
      },
    },
    async (request, reply) => {
      const caller = await tenantCaller(context, request);
      const body = readBody<{ vkey: string; checkpoint: string }>(request, COSIGNATURE_BODY_SCHEMA);
      const served = await context.log.cosign(caller.tenant.id, body, context.now());
      return reply.code(201).type('text/plain; charset=utf-8').send(served);
    },
  );
}
