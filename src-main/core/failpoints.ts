/**
 * Failpoints: named places in the code where a test can make the process fail on purpose, to
 * prove what a crash or a defect leaves behind (crash safety, docs/security.md).
 *
 * One environment variable switches them on, `EVROOM_FAILPOINTS=name=action[,name=action]`,
 * e.g. `EVROOM_FAILPOINTS=anchor.after-record=kill`. Unset or empty, every failpoint is inert:
 * {@link failpoint} compares one string and returns. The names and actions are a closed list
 * ({@link FAILPOINTS}, {@link FAILPOINT_ACTIONS}); a value naming anything else is refused with a
 * {@link FailpointConfigError} when a door starts ({@link checkFailpoints}) and, should a door not
 * have checked, at the first failpoint reached. The value is parsed once per distinct value.
 */

import { isMainThread } from 'node:worker_threads';

/** The named failpoints and where each one is. */
export const FAILPOINTS = {
  'anchor.after-record':
    'the anchor engine, right after recording a batch’s signed transaction, before broadcasting it',
  'anchor.after-broadcast':
    'the anchor engine, right after broadcasting a batch’s transaction, before marking it posted',
  'payments.after-record':
    'a payment’s observation (src-main/operations/payments.ts), once the confirmed payment is recorded, before its key is issued',
  'operations.verify': 'the verify operation (src-main/operations/verify.ts), before the document is verified',
  'verify-worker.request':
    'a verification worker thread (src-main/core/verify-worker.ts), as a request arrives, before any of it is answered',
} as const;

/** A failpoint's name. */
export type FailpointName = keyof typeof FAILPOINTS;

/** What a failpoint does when switched on, and what each action means. */
export const FAILPOINT_ACTIONS = {
  kill: 'the process kills itself with SIGKILL (no cleanup of any kind)',
  'throw-type-error': 'throws a TypeError whose message starts with "failpoint NAME:" (a stand-in for a defect)',
  'exit-thread':
    'a worker thread ends at once, as a crashed worker would (on the main thread it is `kill`: the process dies)',
} as const;

/** A failpoint's action. */
export type FailpointAction = keyof typeof FAILPOINT_ACTIONS;

/** The environment variable that switches failpoints on. */
export const FAILPOINTS_VARIABLE = 'EVROOM_FAILPOINTS';

/** An `EVROOM_FAILPOINTS` value that names an unknown failpoint or action, or is not `name=action` pairs. */
export class FailpointConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'FailpointConfigError';
  }
}

/** The last value parsed and what it switched on (the variable rarely changes; tests set it). */
let parsed: { value: string; actions: ReadonlyMap<FailpointName, FailpointAction> } | undefined;

/**
 * The failpoints a value switches on.
 *
 * @param value - `name=action[,name=action]`; empty for none. Spaces around items are ignored.
 * @returns each named failpoint with its action
 * @throws FailpointConfigError naming the unknown failpoint or action, with the known ones
 */
export function parseFailpoints(value: string): ReadonlyMap<FailpointName, FailpointAction> {
  if (typeof value !== 'string') throw new TypeError('parseFailpoints expects a string');
  const actions = new Map<FailpointName, FailpointAction>();
  for (const item of value.split(',')) {
    const text = item.trim();
    if (text === '') continue;
    const equals = text.indexOf('=');
    const name = equals < 0 ? text : text.slice(0, equals).trim();
    const action = equals < 0 ? '' : text.slice(equals + 1).trim();
    if (!Object.hasOwn(FAILPOINTS, name))
      throw new FailpointConfigError(
        `${FAILPOINTS_VARIABLE}: unknown failpoint ${JSON.stringify(name)}; known: ${Object.keys(FAILPOINTS).join(', ')}.`,
      );
    if (!Object.hasOwn(FAILPOINT_ACTIONS, action))
      throw new FailpointConfigError(
        `${FAILPOINTS_VARIABLE}: failpoint ${name} needs one of the actions ${Object.keys(FAILPOINT_ACTIONS).join(', ')} (${name}=ACTION), not ${JSON.stringify(action)}.`,
      );
    actions.set(name as FailpointName, action as FailpointAction);
  }
  return actions;
}

/** The failpoints switched on by the environment (parsed once per distinct value). */
function activeFailpoints(env: NodeJS.ProcessEnv): ReadonlyMap<FailpointName, FailpointAction> | undefined {
  const value = env[FAILPOINTS_VARIABLE];
  if (value === undefined || value === '') return undefined;
  if (parsed?.value !== value) parsed = { value, actions: parseFailpoints(value) };
  return parsed.actions;
}

/**
 * Refuses an `EVROOM_FAILPOINTS` that names anything unknown; doors call it when they start, so
 * a mistyped test setting fails at once rather than leaving a failpoint silently inert.
 *
 * @param env - The environment (default `process.env`).
 * @throws FailpointConfigError as {@link parseFailpoints}
 */
export function checkFailpoints(env: NodeJS.ProcessEnv = process.env): void {
  activeFailpoints(env);
}

/**
 * Passes a failpoint: nothing happens unless `EVROOM_FAILPOINTS` switches this one on.
 *
 * @param name - Which failpoint this is.
 * @throws TypeError `failpoint NAME: ...` when its action is `throw-type-error`; FailpointConfigError
 *   when the variable names anything unknown
 */
export function failpoint(name: FailpointName): void {
  const actions = activeFailpoints(process.env);
  if (actions === undefined) return;
  const action = actions.get(name);
  if (action === 'kill' || (action === 'exit-thread' && isMainThread)) process.kill(process.pid, 'SIGKILL');
  else if (action === 'exit-thread') process.exit(1);
  else if (action === 'throw-type-error')
    throw new TypeError(`failpoint ${name}: a TypeError thrown on purpose (${FAILPOINTS_VARIABLE})`);
}
