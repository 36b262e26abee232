/**
 * The Service view's database (Settings): empty for the workspace's own ledger (SQLite), or a
 * PostgreSQL URL shared with `evroom serve --database` nodes (docs/deploy.md).
 *
 * The URL's password never reaches the renderer: the app API answers the URL with the password
 * masked ({@link maskDatabaseUrl}), and saving that masked value unchanged keeps the stored
 * password. Pure: the renderer checks what is typed with the same rules the app API applies.
 */
import { ApiInputError } from './validate';

/** The longest database URL the settings accept. */
export const MAX_DATABASE_URL_LENGTH = 2048;

/** What stands for the password in a masked URL. */
export const PASSWORD_MASK = '•••';

/** Which store the Service view reads and writes, and the service starts on. */
export interface ServiceStoreView {
  engine: 'sqlite' | 'postgres';
  /** In words: "this workspace's ledger" for SQLite, `host:port/database` for PostgreSQL (never a password). */
  where: string;
}

/** The parts of a PostgreSQL URL (no URL class here: this module runs in the browser and in main alike). */
interface DatabaseUrlParts {
  /** `postgres://` or `postgresql://` as written. */
  scheme: string;
  /** The user info before the last `@` of the authority, or undefined. */
  user?: string;
  password?: string;
  host: string;
  port?: string;
  /** The path, query and fragment as written. */
  rest: string;
}

function parse(value: string): DatabaseUrlParts | undefined {
  const scheme = /^postgres(?:ql)?:\/\//i.exec(value)?.[0];
  if (scheme === undefined) return undefined;
  const after = value.slice(scheme.length);
  const end = after.search(/[/?#]/);
  const authority = end === -1 ? after : after.slice(0, end);
  const rest = end === -1 ? '' : after.slice(end);
  const at = authority.lastIndexOf('@');
  const userInfo = at === -1 ? undefined : authority.slice(0, at);
  const hostPort = authority.slice(at + 1);
  const match = /^(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9._%-]*)(?::(\d*))?$/.exec(hostPort);
  if (match === null) return undefined;
  const parts: DatabaseUrlParts = { scheme, host: match[1] ?? '', rest };
  if (match[2] !== undefined && match[2] !== '') parts.port = match[2];
  if (userInfo !== undefined) {
    const colon = userInfo.indexOf(':');
    parts.user = colon === -1 ? userInfo : userInfo.slice(0, colon);
    if (colon !== -1) parts.password = userInfo.slice(colon + 1);
  }
  return parts;
}

/**
 * What is wrong with a PostgreSQL URL as the settings take it, or undefined when it is one.
 *
 * @param value - The text given (already trimmed).
 * @returns A sentence naming the problem, or undefined.
 */
export function databaseUrlProblem(value: string): string | undefined {
  if (value.length > MAX_DATABASE_URL_LENGTH)
    return `The database URL is longer than ${MAX_DATABASE_URL_LENGTH} characters.`;
  if (/\s/.test(value)) return 'The database URL has a space in it.';
  if (!/^postgres(?:ql)?:\/\//i.test(value))
    return 'The database URL must start with postgres:// or postgresql:// (e.g. postgres://user:password@host:5432/database); leave it empty for this workspace’s ledger.';
  const url = parse(value);
  if (url === undefined) return 'The database URL is not a URL (expected postgres://user:password@host:port/database).';
  if (url.host === '') return 'The database URL names no host.';
  if (url.port !== undefined && (Number(url.port) < 1 || Number(url.port) > 65535))
    return 'The database URL’s port must be from 1 to 65535.';
  return undefined;
}

/**
 * Validates the `service_database` member of `settings.set`: null or "" for the workspace's
 * ledger, or a PostgreSQL URL (possibly the masked one the app answered).
 *
 * @throws ApiInputError at `/service_database`
 */
export function serviceDatabaseInput(value: unknown): string | null {
  if (value === null) return null;
  if (typeof value !== 'string')
    throw new ApiInputError('service_database must be a postgres:// URL, or null for the ledger', '/service_database');
  const trimmed = value.trim();
  if (trimmed === '') return null;
  const problem = databaseUrlProblem(trimmed);
  if (problem !== undefined) throw new ApiInputError(problem, '/service_database');
  return trimmed;
}

/**
 * The URL with its password masked (`postgres://user:•••@host:port/db`), also a `password`
 * query parameter; a URL without a password unchanged.
 *
 * @param value - A URL {@link databaseUrlProblem} accepts.
 */
export function maskDatabaseUrl(value: string): string {
  const url = parse(value);
  if (url === undefined) return value;
  const masked =
    url.password === undefined || url.password === ''
      ? value
      : `${url.scheme}${url.user ?? ''}:${PASSWORD_MASK}@${url.host}${url.port === undefined ? '' : `:${url.port}`}${url.rest}`;
  return masked.replace(/([?&]password=)[^&#]*/gi, `$1${PASSWORD_MASK}`);
}
