/**
 * What every route of the service is given: the service's context, provided to the routes as a
 * decoration of the Fastify instance (service.ts decorates the root before it registers the
 * route plugins, and every route plugin reads it with {@link serviceContext}).
 *
 * This module sits beneath the routes and service.ts: it imports neither (lint says so), so the
 * routes never import back the module that registers them, nor each other.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { PricingChain } from '../../src-shared/api/payments';
import type { KeyEntry, VerifyContext } from '../../src-shared/verify/context';
import type { JsonObject } from '../../src-shared/verify/fields';
import type { VerifyPool } from '../core/worker-pool';
import type { AnchorBackend } from '../operations/anchor-submit';
import type { Caller } from '../operations/service-admin';
import type { WorkerOptions } from '../operations/service-issue';
import type { ServiceLog } from '../operations/service-log';
import type { NodeRecord, ServiceStore } from '../operations/service-store';
import type { ServiceNode } from '../operations/service-node';
import { workspaceVerifyContext, type Workspace } from '../operations/workspace';

/** How often /status is signed anew. */
export const STATUS_INTERVAL_MS = 60_000;

/** A signed /status document. */
export type StatusDocument = JsonObject;

/** The key the service signs receipts, typed contracts and /status with, and the keys it lists. */
export interface ServiceSigner {
  key_id: string;
  /** The 32-byte Ed25519 seed. */
  seed: Uint8Array;
  public_key: Uint8Array;
  /** Every key /v1/keys lists: the active one and the retired ones, with their status. */
  listed: readonly (KeyEntry & {
    status?: 'pinned' | 'revoked';
    created_at?: string;
    retired_at?: string;
    active: boolean;
  })[];
}

/** What every route module is given. */
export interface ServiceContext {
  readonly workspace: Workspace;
  /** The service's data (tenants, keys, quotas, issued receipts, logs, anchors, payments): SQLite or PostgreSQL. */
  readonly store: ServiceStore;
  /** This process among the store's nodes. */
  readonly node: ServiceNode;
  /** The nodes seen in the last 10 minutes, newest heartbeat first, as of the last heartbeat (every 5 s). */
  nodes(): readonly NodeRecord[];
  readonly signer: ServiceSigner;
  now(): Date;
  readonly freePerDay: number;
  readonly proPerMonth: number;
  /** The caller of a request that must carry an API key (read from the store each time); 401 without a valid one. */
  requireCaller(request: FastifyRequest): Promise<Caller>;
  /** The latest signed /status. */
  status(): StatusDocument;
  /** The anchoring engine, unless the service runs without anchoring. */
  readonly anchor: AnchorBackend | undefined;
  /** Where API keys are bought, per chain (`GET /pricing`'s `chains`). */
  readonly pricingChains: readonly PricingChain[];
  /** The verify route's worker threads, when the service has them. */
  readonly verifyPool: VerifyPool | undefined;
  /** Where a request's issued receipt is checked: the worker threads, and the log line when one failed. */
  issueWorkers(request: FastifyRequest): WorkerOptions;
  /** The tenants' transparency logs: their key, name, checkpoints and proofs. */
  readonly log: ServiceLog;
}

/** The name of the decoration that carries the context. */
const CONTEXT_DECORATION = 'serviceContext';

/**
 * Provides the context to every route registered on `app` or beneath it.
 *
 * @param app - The root instance, before any route plugin is registered.
 * @param context - The service's context.
 */
export function provideServiceContext(app: FastifyInstance, context: ServiceContext): void {
  app.decorate(CONTEXT_DECORATION, context);
}

/**
 * The context a route plugin works with.
 *
 * @param app - The instance the route plugin was registered on.
 * @returns The context {@link provideServiceContext} gave the root.
 */
export function serviceContext(app: FastifyInstance): ServiceContext {
  return app.getDecorator<ServiceContext>(CONTEXT_DECORATION);
}

/** The service's listed keys as verifier entries (no status: they confer no trust), made once per list. */
const listedKeyEntries = new WeakMap<ServiceSigner['listed'], KeyEntry[]>();

/**
 * The service's listed keys as verifier entries: they check signatures and confer no trust.
 *
 * @param context - The service's context.
 * @returns One entry per listed key (the same array for the same list).
 */
export function listedKeys(context: ServiceContext): KeyEntry[] {
  const listed = context.signer.listed;
  let entries = listedKeyEntries.get(listed);
  if (entries === undefined) {
    entries = listed.map((key) => ({ key_id: key.key_id, algorithm: key.algorithm, public_key: key.public_key }));
    listedKeyEntries.set(listed, entries);
  }
  return entries;
}

/**
 * The verify context of the service: the trust store, and the service's own keys (and `keys`)
 * as keys that check signatures and confer no trust.
 *
 * @param context - The service's context.
 * @param keys - Further keys that check signatures (sent with a request).
 * @returns The context to verify a request's document with.
 */
export function serviceVerifyContext(context: ServiceContext, keys: readonly KeyEntry[] = []): VerifyContext {
  return workspaceVerifyContext(context.workspace, {
    advertised: [...listedKeys(context), ...keys],
    now: context.now(),
  });
}
