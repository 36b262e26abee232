/**
 * TEMPORARY stand-ins for `listLogs` / `logDetail` of operations/log-checkpoints.ts (issue 28,
 * owned by h-tcli), so the app API's `logs.*` methods and the views can be built before it
 * lands. This file is deleted when log-checkpoints.ts is merged: its callers then import the
 * real functions, whose signatures these copy.
 */
import type { LogDetail, LogView } from '../../src-shared/api/logs-contract';
import { OperationError } from './errors';
import type { Workspace } from './workspace';

/**
 * Every log the workstation has seen checkpoints of: none until the checkpoints ledger exists.
 *
 * @param workspace - The open workspace (unused until then).
 * @returns An empty list.
 */
export function pendingListLogs(workspace: Workspace): LogView[] {
  void workspace;
  return [];
}

/**
 * One log in full: never found until the checkpoints ledger exists.
 *
 * @param workspace - The open workspace (unused until then).
 * @param origin - The log's origin line.
 * @throws OperationError not_found
 */
export function pendingLogDetail(workspace: Workspace, origin: string): LogDetail {
  void workspace;
  throw new OperationError('not_found', 'not_found', `No checkpoint of the log ${origin} has been seen.`);
}
