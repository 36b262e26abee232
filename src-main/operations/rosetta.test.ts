import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { OperationError } from './errors';
import {
  checkRosettaTable,
  matchTerm,
  normalizeObligations,
  NO_EQUIVALENT,
  ROSETTA_REGIMES,
  ROSETTA_TABLE,
} from './rosetta';

// The shipped file, read from disk as it is: what the service loads must be what is checked here.
const FILE = new URL('../../resources/pilot/rosetta.json', import.meta.url);
const shipped = JSON.parse(fs.readFileSync(FILE, 'utf8')) as {
  regimes: Record<string, { document: string }>;
  obligations: Record<string, unknown>[];
};

describe('resources/pilot/rosetta.json', () => {
  it('gives every row a citation or no_equivalent for each of the four regimes, and a source', () => {
    expect(shipped.obligations.length).toBeGreaterThanOrEqual(8);
    for (const row of shipped.obligations) {
      const cells = row['regimes'] as Record<string, unknown>;
      expect(Object.keys(cells).sort(), String(row['id'])).toEqual([...ROSETTA_REGIMES].sort());
      for (const regime of ROSETTA_REGIMES) {
        const cell = cells[regime];
        if (cell === NO_EQUIVALENT) continue;
        expect(typeof (cell as { citation?: unknown }).citation, `${String(row['id'])}.${regime}`).toBe('string');
        expect((cell as { citation: string }).citation.trim().length, `${String(row['id'])}.${regime}`).toBeGreaterThan(
          0,
        );
        expect((cell as { name: string }).name.trim().length, `${String(row['id'])}.${regime}`).toBeGreaterThan(0);
      }
      expect(typeof row['source'], String(row['id'])).toBe('string');
      expect(String(row['source']).trim().length, String(row['id'])).toBeGreaterThan(0);
    }
    for (const regime of ROSETTA_REGIMES) expect(shipped.regimes[regime]?.document.length).toBeGreaterThan(0);
  });

  it('cites the EU AI Act articles of each record-keeping obligation', () => {
    const eu = Object.fromEntries(
      shipped.obligations.map((row) => [
        row['id'],
        (row['regimes'] as Record<string, { citation: string }>)['eu_ai_act']?.citation,
      ]),
    );
    expect(eu).toMatchObject({
      data_governance: 'Art. 10',
      technical_documentation: 'Art. 11 and Annex IV',
      record_keeping: 'Art. 12',
      transparency_to_deployers: 'Art. 13',
      human_oversight: 'Art. 14',
      accuracy_robustness: 'Art. 15',
      serious_incident_reporting: 'Art. 73',
    });
    expect(eu['log_retention']).toMatch(/^Art\. 19/);
    expect(shipped.regimes['eu_ai_act']?.document).toContain('Regulation (EU) 2024/1689');
  });

  it('passes the loader’s own check, which the service runs on start', () => {
    expect(checkRosettaTable(shipped)).toBe(shipped);
    expect(ROSETTA_TABLE.obligations.map((row) => row.id)).toEqual(shipped.obligations.map((row) => row['id']));
  });
});

describe('checkRosettaTable', () => {
  function withRow(change: (row: Record<string, unknown>) => void): unknown {
    const copy = structuredClone(shipped);
    change(copy.obligations[0] as Record<string, unknown>);
    return copy;
  }

  it('refuses a row missing a regime, a cell without a citation, a row without a source, and a repeated id', () => {
    expect(() =>
      checkRosettaTable(withRow((row) => delete (row['regimes'] as Record<string, unknown>)['uk_ai_principles'])),
    ).toThrow(/four regimes/);
    expect(() =>
      checkRosettaTable(withRow((row) => ((row['regimes'] as Record<string, unknown>)['eu_ai_act'] = { name: 'x' }))),
    ).toThrow(/citation/);
    expect(() =>
      checkRosettaTable(withRow((row) => ((row['regimes'] as Record<string, unknown>)['eu_ai_act'] = 'none'))),
    ).toThrow(/no_equivalent/);
    expect(() => checkRosettaTable(withRow((row) => delete row['source']))).toThrow(/source/);
    expect(() => checkRosettaTable(withRow((row) => (row['id'] = shipped.obligations[1]?.['id'])))).toThrow(/repeated/);
    expect(() => checkRosettaTable(withRow((row) => (row['synonyms'] = ['Logs'])))).toThrow(/lower case/);
  });
});

describe('matchTerm', () => {
  it('matches synonyms case-insensitively on whole words only', () => {
    expect(matchTerm('Audit Trail of decisions')).toEqual(['record_keeping']);
    expect(matchTerm('record\tkeeping')).toEqual(['record_keeping']);
    expect(matchTerm('catalogs')).toEqual([]);
    expect(matchTerm('datasets')).toEqual(['data_governance']);
    expect(matchTerm('keep logs for six months')).toEqual(['record_keeping', 'log_retention']);
    expect(matchTerm('')).toEqual([]);
  });
});

describe('normalizeObligations', () => {
  it('refuses an unknown regime or obligation with its pointer, for callers that skip the route schema', () => {
    const refusal = (request: unknown): OperationError => {
      try {
        normalizeObligations(request as never);
      } catch (error) {
        if (error instanceof OperationError) return error;
      }
      throw new Error('expected an OperationError');
    };
    expect(refusal({ from_regime: 'ccpa', obligations: ['record_keeping'] }).details).toEqual([
      { path: '/from_regime', message: 'unknown regime' },
    ]);
    expect(refusal({ from_regime: 'eu_ai_act', obligations: ['record_keeping', 7] }).details).toEqual([
      { path: '/obligations/1', message: 'unknown obligation' },
    ]);
    expect(refusal({ from_regime: 'eu_ai_act', obligations: [] }).details[0]?.path).toBe('/obligations');
    expect(refusal({ from_regime: 'eu_ai_act', terms: ['x'], obligations: ['record_keeping'] }).code).toBe(
      'invalid_request',
    );
  });

  it('lists each unmatched term once, in request order', () => {
    const answer = normalizeObligations({ from_regime: 'eu_ai_act', terms: ['zeta', 'alpha', 'zeta', 'Logging'] });
    expect(answer.unmatched_terms).toEqual(['zeta', 'alpha']);
    expect(answer.obligations.map((row) => row.id)).toEqual(['record_keeping']);
  });
});
