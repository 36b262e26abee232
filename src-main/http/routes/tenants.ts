/**
 * Tenant routes (PROTOCOL section 9): `POST /tenants/:id/receipts` issues a profile receipt
 * against the tenant's quota, and `GET /tenants/:id/evidence[?since=TS&until=TS]` streams the
 * tenant's evidence bundle (the signed zip `evroom import` reads) with its log's checkpoint and
 * proofs (docs/logs.md, "The service's log"). A key of another tenant is 403.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import { isTimestamp, timestampToMillis } from '../../../src-shared/verify/timestamp';
import { anchorIssuedReceipt } from '../../operations/anchor-submit';
import { exportServedEvidence, MAX_CONSISTENT_WITH, tenantLogOption } from '../../operations/evidence';
import { issueProfile, tenantQuota, type EmitRequest } from '../../operations/service-issue';
import { readBody } from '../body';
import { serviceContext } from '../context';
import { asQuotaError, EMIT_BODY_SCHEMA, PROFILE_QUERY, requestedProfile } from '../emit-request';
import { HttpError } from '../errors';
import { TENANT_PARAMS, tenantCaller } from '../tenant-caller';

/** A period bound of the evidence route: a TS from 1970 on, or absent. */
function periodBound(value: string | undefined, name: 'since' | 'until'): string | undefined {
  // A TS names years 0000-9999; the ledger counts from the Unix epoch, so earlier is refused here.
  if (value !== undefined && !(isTimestamp(value) && timestampToMillis(value) >= 0)) {
    throw new HttpError(
      400,
      'invalid_request',
      `${name} must be a TS (YYYY-MM-DDThh:mm:ss[.f]Z) from 1970-01-01T00:00:00Z on.`,
      { details: [{ path: `?${name}`, message: isTimestamp(value) ? 'is before 1970' : 'is not a TS' }] },
    );
  }
  return value;
}

/** `consistent_with=M[,M…]`: up to 16 distinct tree sizes from 1, in the order given. */
function consistentSizes(value: string | undefined): number[] {
  if (value === undefined) return [];
  const parts = value.split(',');
  const refuse = (message: string): never => {
    throw new HttpError(400, 'invalid_request', `consistent_with ${message}`, {
      details: [{ path: '?consistent_with', message }],
    });
  };
  if (parts.length > MAX_CONSISTENT_WITH) refuse(`names at most ${MAX_CONSISTENT_WITH} sizes, not ${parts.length}.`);
  const sizes: number[] = [];
  for (const part of parts) {
    if (!/^[1-9][0-9]{0,15}$/.test(part) || !Number.isSafeInteger(Number(part)))
      refuse(`must be tree sizes from 1 separated by commas; "${part}" is not one.`);
    const size = Number(part);
    if (sizes.includes(size)) refuse(`names size ${size} twice.`);
    sizes.push(size);
  }
  return sizes;
}

/** The tenant routes, as a plugin. */
export async function tenantRoutes(app: FastifyInstance): Promise<void> {
  const context = serviceContext(app);
  app.post(
    '/tenants/:id/receipts',
    {
      schema: {
        summary: 'Issue a receipt for the tenant (body as emit; ?profile=)',
        tags: ['tenants'],
        params: TENANT_PARAMS,
        querystring: PROFILE_QUERY,
        body: EMIT_BODY_SCHEMA,
        security: [{ apiKey: [] }],
      },
    },
    async (request, reply) => {
      const caller = await tenantCaller(context, request);
      const profile = requestedProfile(request);
      const body = readBody<EmitRequest>(request, EMIT_BODY_SCHEMA);
      const now = context.now();
      try {
        const issued = await issueProfile(context.workspace, context.signer, profile, body, {
          store: context.store,
          now,
          ref: `tenant:${caller.tenant.id}`,
          quota: tenantQuota(caller.tenant, now, context),
          ...context.issueWorkers(request),
        });
        // Scale and enterprise receipts are queued for anchoring (null without anchoring or on other tiers).
        return reply.code(201).send({
          receipt: issued.document,
          anchor: await anchorIssuedReceipt(context.anchor, caller, issued.receipt_sha256),
        });
      } catch (error) {
        throw asQuotaError(error, now);
      }
    },
  );

  app.get(
    '/tenants/:id/evidence',
    {
      schema: {
        summary:
          'The tenant’s evidence bundle (application/zip): the receipts issued in [since, until) when given, with the log’s checkpoint and proofs (log/checkpoint.txt, log/proofs.json); consistent_with=M[,M…] adds consistency proofs from earlier signed sizes',
        tags: ['tenants'],
        params: TENANT_PARAMS,
        querystring: {
          type: 'object',
          additionalProperties: false,
          properties: { since: { type: 'string' }, until: { type: 'string' }, consistent_with: { type: 'string' } },
        },
        security: [{ apiKey: [] }],
      },
    },
    async (request, reply) => {
      const caller = await tenantCaller(context, request);
      const query = request.query as { since?: string; until?: string; consistent_with?: string };
      const since = periodBound(query.since, 'since');
      const until = periodBound(query.until, 'until');
      if (since !== undefined && until !== undefined && timestampToMillis(until) <= timestampToMillis(since)) {
        throw new HttpError(
          400,
          'invalid_request',
          'until must be after since: the period is since <= issued_at < until.',
          {
            details: [{ path: '?until', message: 'is not after since' }],
          },
        );
      }
      const consistentWith = consistentSizes(query.consistent_with);
      // Signed now if the log grew: the bundle's checkpoint covers every receipt issued before the request.
      await context.log.freshCheckpoint(caller.tenant.id, context.now());
      for (const size of consistentWith) await context.log.signedCheckpoint(caller.tenant.id, size, 'consistent_with');
      const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'evroom-evidence-'));
      const file = path.join(folder, `${caller.tenant.id}.zip`);
      try {
        await exportServedEvidence(context.workspace, context.store, {
          out: file,
          tenantId: caller.tenant.id,
          signingKey: context.signer,
          log: tenantLogOption(context.log, {
            tenantId: caller.tenant.id,
            since: since ?? null,
            until: until ?? null,
            consistentWith,
          }),
          now: context.now(),
          // Off the HTTP thread (SQLite): the zip writer moves one entry per turn of the event
          // loop, and this loop's turns are long while requests keep coming.
          worker: true,
          onWorkerError: (error) =>
            request.log.error({ err: error }, 'export worker failed; writing the evidence on the HTTP thread'),
        });
      } catch (error) {
        fs.rmSync(folder, { recursive: true, force: true });
        throw error;
      }
      const stream = fs.createReadStream(file);
      // The temporary copy goes once it has been sent (or the client went away).
      stream.on('close', () => fs.rmSync(folder, { recursive: true, force: true }));
      return reply
        .header('content-type', 'application/zip')
        .header('content-disposition', `attachment; filename="evidence-${caller.tenant.id}.zip"`)
        .send(stream);
    },
  );
}
