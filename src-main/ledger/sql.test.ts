import { describe, expect, it } from 'vitest';
import { sql, sqlFragment, sqlIdentifier, sqlJoin } from './sql';

describe('sql', () => {
  it('turns every interpolated value into a parameter', () => {
    const hostile = "x'; DROP TABLE receipts; --";
    const [text, params] = sql`SELECT id FROM receipts WHERE status = ${hostile} AND id > ${5}`;
    expect(text).toBe('SELECT id FROM receipts WHERE status = ? AND id > ?');
    expect(params).toEqual([hostile, 5]);
  });

  it('inlines fragments with their parameters in order', () => {
    const a = sqlFragment`format = ${'classical'}`;
    const b = sqlFragment`status = ${'PASS'}`;
    const [text, params] = sql`SELECT 1 WHERE ${sqlJoin([a, b], ' AND ')} LIMIT ${10}`;
    expect(text).toBe('SELECT 1 WHERE format = ? AND status = ? LIMIT ?');
    expect(params).toEqual(['classical', 'PASS', 10]);
  });

  it('accepts null, bigint and bytes, refuses values with no single SQLite meaning', () => {
    const bytes = new Uint8Array([1, 2]);
    expect(sql`VALUES (${null}, ${1n}, ${bytes})`[1]).toEqual([null, 1n, bytes]);
    expect(() => sql`VALUES (${undefined as unknown as null})`).toThrow(TypeError);
    expect(() => sql`VALUES (${true as unknown as number})`).toThrow(TypeError);
    expect(() => sql`VALUES (${Number.NaN})`).toThrow(TypeError);
    expect(() => sql`VALUES (${{} as unknown as string})`).toThrow(TypeError);
  });

  it('splices only allow-listed identifiers', () => {
    const [text] = sql`SELECT 1 ORDER BY ${sqlIdentifier('issued_order', ['issued_order', 'id'])}`;
    expect(text).toBe('SELECT 1 ORDER BY "issued_order"');
    expect(() => sqlIdentifier('id; DROP TABLE x', ['id'])).toThrow(RangeError);
    expect(() => sqlIdentifier('raw', ['id'])).toThrow(RangeError);
    // An allow-list entry that is not a plain identifier is refused too.
    expect(() => sqlIdentifier('a"b', ['a"b'])).toThrow(RangeError);
  });
});
