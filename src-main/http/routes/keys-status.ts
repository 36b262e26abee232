/**
 * `GET /v1/keys` (the advertised signing keys, PROTOCOL 6) and `GET /status` (every route's
 * status, signed under Rule D1 and regenerated every 60 s, PROTOCOL 10).
 *
 * The /v1/keys answer is a key file: saved as it is, `evroom verify --keys` takes it. Listing a
 * key confers no trust, and the answer says so.
 */
import type { FastifyInstance } from 'fastify';
import { b64uEncode } from '../../../src-shared/crypto';
import type { JsonObject } from '../../../src-shared/verify/fields';
import { signRuleD1 } from '../../../src-shared/verify/signature';
import { serviceContext, STATUS_INTERVAL_MS, type ServiceContext, type StatusDocument } from '../context';

/** The note /v1/keys carries. */
export const KEYS_NOTE =
  'Listing a key confers no trust: pin a key you have checked independently to make its signatures trusted.';

/** How often /status reads the anchoring backlog at most, ms. */
const BACKLOG_CHECK_MS = 1000;

/**
 * The anchoring engine's backlog as /status shows it: hashes not yet resolved, batches by
 * state, the last chain error and the next retry; `{enabled: false}` without anchoring.
 */
export async function anchorStatus(context: ServiceContext): Promise<JsonObject> {
  if (context.anchor === undefined) return { enabled: false };
  const status = await context.anchor.status();
  return {
    enabled: true,
    network: status.network,
    interval_seconds: status.interval_seconds,
    confirmations: status.confirmations,
    pending_hashes: status.pending_hashes,
    batches: { ...status.batches },
    last_error: status.last_error,
    next_retry_at: status.next_retry_at,
  };
}

/** The nodes as /status lists them: id, version, and ISO times of their start and last heartbeat. */
export function nodesStatus(context: ServiceContext): JsonObject[] {
  return context.nodes().map((node) => ({
    id: node.id,
    version: node.version,
    started_at: new Date(node.started_at).toISOString(),
    heartbeat_at: new Date(node.heartbeat_at).toISOString(),
  }));
}

/** The ids of the nodes listed (a change of them signs /status anew). */
function nodeIds(context: ServiceContext): string {
  return context
    .nodes()
    .map((node) => node.id)
    .sort()
    .join(' ');
}

/** What /status is made from: every route's name, and where the signed document goes. */
export interface StatusSource {
  routes(): readonly string[];
  update(document: StatusDocument): void;
}

/** /v1/keys and /status, as a plugin that keeps /status fresh until the service closes. */
export async function keysStatusRoutes(app: FastifyInstance, status: StatusSource): Promise<void> {
  const context = serviceContext(app);
  app.get(
    '/v1/keys',
    {
      schema: {
        summary: 'The signing keys this service advertises (a key file; listing confers no trust)',
        tags: ['keys'],
      },
    },
    async () => ({
      keys: [
        ...context.signer.listed.map((key) => ({
          key_id: key.key_id,
          algorithm: key.algorithm,
          public_key: b64uEncode(key.public_key),
          use: ['receipts', 'typed-contracts', 'status', 'evidence'],
          status: key.active ? 'active' : 'retired',
          ...(key.not_before !== undefined ? { not_before: key.not_before } : {}),
          ...(key.not_after !== undefined ? { not_after: key.not_after } : {}),
        })),
        // The tenants' logs' checkpoint key (docs/logs.md, "The service's log"), with its note key name and vkey.
        {
          key_id: context.log.keyId,
          algorithm: 'Ed25519',
          public_key: b64uEncode(context.log.publicKey),
          use: ['log-checkpoints'],
          status: 'active',
          note_key_name: context.log.name,
          vkey: context.log.vkey,
        },
      ],
      note: KEYS_NOTE,
    }),
  );

  let signedAnchor = '';
  let signedNodes = '';
  async function regenerate(): Promise<void> {
    const endpoints = [...new Set(status.routes())]
      .filter((route) => !route.endsWith(' /openapi.json') && !route.endsWith(' /verifier'))
      .sort()
      .map((route) => ({ route, status: 'up' }));
    const anchor = await anchorStatus(context);
    signedAnchor = JSON.stringify(anchor);
    signedNodes = nodeIds(context);
    const unsigned: JsonObject = {
      generated_at: context.now().toISOString(),
      key_id: context.signer.key_id,
      endpoints,
      anchor,
      nodes: nodesStatus(context),
    };
    status.update(signRuleD1(unsigned, context.signer.seed, context.workspace.crypto));
  }

  // Regenerated every 60 s, and when the anchoring backlog changed since the last one. The
  // backlog is read from the ledger at most once a second (a busy /status would otherwise query
  // it on every request), and the signed document is written as JSON once per regeneration.
  let backlogCheckedAt = Number.NEGATIVE_INFINITY;
  let served: { document: StatusDocument; json: string } | undefined;
  app.get(
    '/status',
    {
      schema: {
        summary:
          'Every route’s status, the anchoring backlog and the service’s nodes, signed under Rule D1, regenerated every 60 s (and within a second of a backlog change, at once when a node joins or leaves)',
        tags: ['keys'],
      },
    },
    async (_request, reply) => {
      const at = Date.now();
      if (context.anchor !== undefined && at - backlogCheckedAt >= BACKLOG_CHECK_MS) {
        backlogCheckedAt = at;
        if (JSON.stringify(await anchorStatus(context)) !== signedAnchor) await regenerate();
      }
      // A node that joined or left the list: sign anew (the heartbeat times follow every 60 s).
      if (nodeIds(context) !== signedNodes) await regenerate();
      const document = context.status();
      if (served?.document !== document) served = { document, json: JSON.stringify(document) };
      return reply.type('application/json; charset=utf-8').send(served.json);
    },
  );

  let timer: NodeJS.Timeout | undefined;
  app.addHook('onReady', async () => {
    await regenerate();
    // A store that does not answer for a moment keeps the last signed document until the next run.
    timer = setInterval(() => void regenerate().catch(() => undefined), STATUS_INTERVAL_MS);
    timer.unref();
  });
  app.addHook('onClose', async () => clearInterval(timer));
}
