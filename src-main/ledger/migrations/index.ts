/**
 * Every migration, in order. Add a new file `NNNN-name.ts` and append it here; the runner
 * refuses a list that is out of order or has a gap.
 */
import { initialMigration } from './0001-initial';
import { batchCountsMigration } from './0002-batch-counts';
import { serviceMigration } from './0003-service';
import { anchorEngineMigration } from './0004-anchor-engine';
import { anchorChecksMigration } from './0005-anchor-checks';
import { keyRolesMigration } from './0006-key-roles';
import { unattributedTrustMigration } from './0007-unattributed-trust';
import { receiptAnchorStateMigration } from './0008-receipt-anchor-state';
import { paymentsMigration } from './0009-payments';
import { verifiedWithContextMigration } from './0010-verified-with-context';
import { tenantLogsMigration } from './0011-tenant-logs';
import { bundleLogMigration } from './0012-bundle-log';
import { seenCheckpointsMigration } from './0013-seen-checkpoints';
import type { Migration } from './types';

export type { Migration } from './types';
export { LEDGER_APPLICATION_ID } from './0001-initial';

/** The migrations compiled into this program, oldest first. */
export const MIGRATIONS: readonly Migration[] = [
  initialMigration,
  batchCountsMigration,
  serviceMigration,
  anchorEngineMigration,
  anchorChecksMigration,
  keyRolesMigration,
  unattributedTrustMigration,
  receiptAnchorStateMigration,
  paymentsMigration,
  verifiedWithContextMigration,
  tenantLogsMigration,
  bundleLogMigration,
  seenCheckpointsMigration,
];
