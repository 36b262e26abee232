import { describe, expect, it } from 'vitest';
import { APP_API } from './contract-validators';
import { ApiInputError } from './validate';
import { databaseUrlProblem, maskDatabaseUrl, MAX_DATABASE_URL_LENGTH } from './service-database';

describe('the service database setting', () => {
  it('takes null, "" or a postgres:// or postgresql:// URL (the masked one too)', () => {
    expect(APP_API['settings.set']({ service_database: null })).toEqual({ service_database: null });
    expect(APP_API['settings.set']({ service_database: '  ' })).toEqual({ service_database: null });
    for (const url of [
      'postgres://evroom:pw@db.internal:5432/evroom',
      'postgresql://db.internal/evroom?sslmode=require',
      'postgres://evroom:•••@[::1]:6543/evroom',
      'postgres://localhost',
    ])
      expect(APP_API['settings.set']({ service_database: ` ${url} ` })).toEqual({ service_database: url });
  });

  it('refuses anything else at /service_database', () => {
    for (const [value, words] of [
      ['mysql://root@db/x', 'postgres:// or postgresql://'],
      ['db.internal:5432/evroom', 'postgres:// or postgresql://'],
      ['postgres://', 'names no host'],
      ['postgres://u:p@/db', 'names no host'],
      ['postgres://u@db:0/x', 'port'],
      ['postgres://u@db:70000/x', 'port'],
      ['postgres://u@d b/x', 'space'],
      ['postgres://u@db/x y', 'space'],
      ['postgres://u@db:54a/x', 'not a URL'],
      [`postgres://db/${'x'.repeat(MAX_DATABASE_URL_LENGTH)}`, 'longer than'],
      [5432, 'service_database must be'],
    ] as const) {
      let refused: unknown;
      try {
        APP_API['settings.set']({ service_database: value });
      } catch (error) {
        refused = error;
      }
      expect(refused, String(value)).toBeInstanceOf(ApiInputError);
      expect((refused as ApiInputError).message).toContain(words);
      expect((refused as ApiInputError).path).toBe('/service_database');
    }
    expect(databaseUrlProblem('postgres://evroom@db/evroom')).toBeUndefined();
  });

  it('masks the password, in the user info and as a query parameter, and nothing else', () => {
    expect(maskDatabaseUrl('postgres://evroom:s3cret@db.internal:5432/evroom')).toBe(
      'postgres://evroom:•••@db.internal:5432/evroom',
    );
    // An @ in the password (the last @ of the authority ends the user info).
    expect(maskDatabaseUrl('postgresql://evroom:p@ss:w@rd@db/evroom?sslmode=require')).toBe(
      'postgresql://evroom:•••@db/evroom?sslmode=require',
    );
    expect(maskDatabaseUrl('postgres://db/evroom?user=evroom&password=s3cret&sslmode=require')).toBe(
      'postgres://db/evroom?user=evroom&password=•••&sslmode=require',
    );
    expect(maskDatabaseUrl('postgres://evroom@db/evroom')).toBe('postgres://evroom@db/evroom');
    expect(maskDatabaseUrl('postgres://evroom:@db/evroom')).toBe('postgres://evroom:@db/evroom');
  });
});
