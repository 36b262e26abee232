/**
 * PostgreSQL URLs as messages name them: `host:port/database`, never the password. No driver
 * here, so the CLI can check a `--database` URL without loading node-postgres.
 */

/**
 * `host:port/database` of a PostgreSQL URL: what errors and messages name (never the password).
 *
 * @throws RangeError when `url` is not a `postgres://` or `postgresql://` URL
 */
export function describePgUrl(url: string): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new RangeError('not a URL (expected postgres://user:password@host:port/database)');
  }
  if (parsed.protocol !== 'postgres:' && parsed.protocol !== 'postgresql:')
    throw new RangeError(
      `not a PostgreSQL URL: it starts with ${parsed.protocol}// (expected postgres:// or postgresql://)`,
    );
  if (parsed.hostname === '') throw new RangeError('the PostgreSQL URL names no host');
  let database: string;
  try {
    database =
      decodeURIComponent(parsed.pathname.replace(/^\//, '')) || decodeURIComponent(parsed.username) || 'postgres';
  } catch {
    throw new RangeError('the PostgreSQL URL has a % that begins no escape');
  }
  return `${parsed.hostname}:${parsed.port || '5432'}/${database}`;
}
