/**
 * Rosetta (pilot, PROTOCOL section 11): record-keeping obligations of AI systems mapped among
 * four regimes, from the table in `resources/pilot/rosetta.json`.
 *
 * The table is data, not code: each row is one obligation with, for each regime, the provision's
 * name and citation (or `no_equivalent`), the receipt fields that evidence it, the synonyms free
 * text is matched by, and the row's sources. The answer is a pure function of the request and
 * the table, so the same request always gets the same answer.
 */
import table from '../../resources/pilot/rosetta.json';
import { OperationError } from './errors';

/** The four regimes, in the order answers list them. */
export const ROSETTA_REGIMES = ['eu_ai_act', 'nist_ai_rmf', 'iso_iec_42001', 'uk_ai_principles'] as const;
export type RosettaRegime = (typeof ROSETTA_REGIMES)[number];

/** What a regime's cell says where it has nothing we would map. */
export const NO_EQUIVALENT = 'no_equivalent';

/** Most obligations or terms one request may name. */
export const MAX_ROSETTA_ITEMS = 32;
/** Longest free-text term. */
export const MAX_TERM_LENGTH = 200;

/** The disclaimer every Rosetta answer carries. */
export const ROSETTA_DISCLAIMER =
  'Not legal advice. This mapping is Evidence Room’s reading of the cited texts; equivalence between regimes is approximate and their legal force differs. Check the texts themselves and your counsel.';

/** A regime's provision for one obligation. */
export interface RosettaProvision {
  name: string;
  citation: string;
  /** Where the match is partial or the provision is not a duty. */
  note?: string;
}

/** One regime's cell: its provision, or no_equivalent. */
export type RosettaCell = RosettaProvision | typeof NO_EQUIVALENT;

/** A receipt field that evidences an obligation: a JSON Pointer into a standard profile receipt. */
export interface RosettaReceiptField {
  pointer: string;
  evidences: string;
}

/** One row of the table. */
export interface RosettaObligation {
  id: string;
  title: string;
  regimes: Record<RosettaRegime, RosettaCell>;
  receipt_fields: RosettaReceiptField[];
  evidence_note?: string;
  synonyms: string[];
  source: string;
}

/** A regime's source document. */
export interface RosettaRegimeDocument {
  title: string;
  document: string;
  url?: string;
}

/** The whole table. */
export interface RosettaTable {
  table_version: string;
  about: string;
  regimes: Record<RosettaRegime, RosettaRegimeDocument>;
  obligations: RosettaObligation[];
}

/** A request: obligations by id, or free-text terms. */
export type RosettaRequest = { from_regime: string; obligations: string[] } | { from_regime: string; terms: string[] };

/** One obligation in an answer. */
export interface RosettaAnswerObligation {
  id: string;
  title: string;
  /** The from_regime's own cell. */
  from: RosettaCell;
  regimes: Record<RosettaRegime, RosettaCell>;
  receipt_fields: RosettaReceiptField[];
  evidence_note?: string;
  source: string;
  /** For a terms request: the terms that matched this obligation, in request order. */
  matched_terms?: string[];
}

/** The answer. */
export interface RosettaAnswer {
  pilot: true;
  table_version: string;
  from_regime: RosettaRegime;
  obligations: RosettaAnswerObligation[];
  unmatched_terms?: string[];
  sources: Record<RosettaRegime, RosettaRegimeDocument>;
  disclaimer: string;
}

const OBLIGATION_ID = /^[a-z][a-z0-9_]{0,63}$/;
const POINTER = /^(?:\/[a-z0-9_]+)+$/;

function nonEmptyString(value: unknown): value is string {
  return typeof value === 'string' && value.trim().length > 0 && value.trim() === value;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function checkCell(cell: unknown, where: string): RosettaCell {
  if (cell === NO_EQUIVALENT) return cell;
  if (!isRecord(cell)) throw new Error(`${where}: a cell is a provision {name, citation, note?} or "${NO_EQUIVALENT}"`);
  for (const key of Object.keys(cell))
    if (!['name', 'citation', 'note'].includes(key)) throw new Error(`${where}: unknown member ${key}`);
  if (!nonEmptyString(cell['name']) || !nonEmptyString(cell['citation']))
    throw new Error(`${where}: a provision needs a name and a citation`);
  if (cell['note'] !== undefined && !nonEmptyString(cell['note']))
    throw new Error(`${where}: a note is a non-empty string`);
  return cell as unknown as RosettaProvision;
}

/**
 * Checks a Rosetta table's shape.
 *
 * Every row needs an id, a title, a cell for each of the four regimes (a provision with its
 * citation, or no_equivalent), receipt fields, synonyms and a source; ids and synonyms are
 * unique, so a term can never be matched by two spellings of one row.
 *
 * @param value - The parsed table.
 * @returns The table, typed.
 * @throws Error naming the first row and member at fault.
 */
export function checkRosettaTable(value: unknown): RosettaTable {
  if (!isRecord(value)) throw new Error('the Rosetta table is not an object');
  if (!nonEmptyString(value['table_version']) || !nonEmptyString(value['about']))
    throw new Error('the Rosetta table needs table_version and about');
  const regimes = value['regimes'];
  if (!isRecord(regimes) || Object.keys(regimes).sort().join() !== [...ROSETTA_REGIMES].sort().join()) {
    throw new Error(`the Rosetta table's regimes are exactly ${ROSETTA_REGIMES.join(', ')}`);
  }
  for (const regime of ROSETTA_REGIMES) {
    const document = regimes[regime];
    if (!isRecord(document) || !nonEmptyString(document['title']) || !nonEmptyString(document['document']))
      throw new Error(`regimes.${regime} needs a title and a document`);
    if (
      document['url'] !== undefined &&
      !(typeof document['url'] === 'string' && document['url'].startsWith('https://'))
    )
      throw new Error(`regimes.${regime}.url is an https URL`);
  }
  const rows = value['obligations'];
  if (!Array.isArray(rows) || rows.length === 0) throw new Error('the Rosetta table has no obligations');
  const ids = new Set<string>();
  const synonyms = new Set<string>();
  rows.forEach((row: unknown, index) => {
    const where = `obligations[${index}]`;
    if (!isRecord(row)) throw new Error(`${where} is not an object`);
    for (const key of Object.keys(row)) {
      if (!['id', 'title', 'regimes', 'receipt_fields', 'evidence_note', 'synonyms', 'source'].includes(key))
        throw new Error(`${where}: unknown member ${key}`);
    }
    const id = row['id'];
    if (typeof id !== 'string' || !OBLIGATION_ID.test(id) || ids.has(id))
      throw new Error(`${where}: the id is missing, not snake_case, or repeated`);
    ids.add(id);
    if (!nonEmptyString(row['title']) || !nonEmptyString(row['source']))
      throw new Error(`${where} (${id}): needs a title and a source`);
    const cells = row['regimes'];
    if (!isRecord(cells) || Object.keys(cells).length !== ROSETTA_REGIMES.length)
      throw new Error(`${where} (${id}): needs a cell for each of the four regimes`);
    for (const regime of ROSETTA_REGIMES) checkCell(cells[regime], `${where} (${id}).regimes.${regime}`);
    const fields = row['receipt_fields'];
    if (!Array.isArray(fields)) throw new Error(`${where} (${id}): receipt_fields is a list`);
    for (const field of fields as unknown[]) {
      if (
        !isRecord(field) ||
        typeof field['pointer'] !== 'string' ||
        !POINTER.test(field['pointer']) ||
        !nonEmptyString(field['evidences']) ||
        Object.keys(field).length !== 2
      ) {
        throw new Error(`${where} (${id}): a receipt field is {pointer, evidences}`);
      }
    }
    if (fields.length === 0 && !nonEmptyString(row['evidence_note']))
      throw new Error(`${where} (${id}): with no receipt fields, an evidence_note says why`);
    if (row['evidence_note'] !== undefined && !nonEmptyString(row['evidence_note']))
      throw new Error(`${where} (${id}): evidence_note is a non-empty string`);
    const words = row['synonyms'];
    if (!Array.isArray(words) || words.length === 0) throw new Error(`${where} (${id}): needs synonyms`);
    for (const word of words as unknown[]) {
      // Synonyms are stored as they are matched: lower case, single spaces.
      if (!nonEmptyString(word) || word !== word.toLowerCase() || /\s{2,}|[^\S ]/.test(word))
        throw new Error(`${where} (${id}): synonym ${JSON.stringify(word)} is not lower case with single spaces`);
      if (synonyms.has(`${id}\u0000${word}`)) throw new Error(`${where} (${id}): synonym ${word} is repeated`);
      synonyms.add(`${id}\u0000${word}`);
    }
  });
  return value as unknown as RosettaTable;
}

/** The shipped table, checked once when the module loads (a broken table stops the service starting). */
export const ROSETTA_TABLE: RosettaTable = checkRosettaTable(table);

/** The obligation ids of the shipped table, in table order. */
export const ROSETTA_OBLIGATION_IDS: readonly string[] = ROSETTA_TABLE.obligations.map((row) => row.id);

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

// A synonym matches as whole words: no letter or digit may touch it on either side.
const MATCHERS: readonly { row: RosettaObligation; patterns: RegExp[] }[] = ROSETTA_TABLE.obligations.map((row) => ({
  row,
  patterns: row.synonyms.map(
    (word) => new RegExp(`(?<![\\p{L}\\p{N}])${escapeRegExp(word).replace(/ /g, '\\s+')}(?![\\p{L}\\p{N}])`, 'iu'),
  ),
}));

/**
 * The obligations a free-text term names, by the table's synonyms.
 *
 * Matching is case-insensitive, on whole words (a synonym's spaces match any run of white
 * space), so "Event LOGS" matches "event logs" and "logs" but "catalogs" matches nothing.
 *
 * @param term - The term as the caller wrote it.
 * @returns The ids of the matching obligations, in table order; empty when none matches.
 * @throws TypeError if term is not a string.
 */
export function matchTerm(term: string): string[] {
  if (typeof term !== 'string') throw new TypeError('matchTerm expects a string');
  return MATCHERS.filter((matcher) => matcher.patterns.some((pattern) => pattern.test(term))).map(
    (matcher) => matcher.row.id,
  );
}

function answerRow(row: RosettaObligation, from: RosettaRegime, matched?: string[]): RosettaAnswerObligation {
  const regimes = Object.fromEntries(ROSETTA_REGIMES.map((regime) => [regime, row.regimes[regime]])) as Record<
    RosettaRegime,
    RosettaCell
  >;
  return {
    id: row.id,
    title: row.title,
    from: row.regimes[from],
    regimes,
    receipt_fields: row.receipt_fields,
    ...(row.evidence_note === undefined ? {} : { evidence_note: row.evidence_note }),
    source: row.source,
    ...(matched === undefined ? {} : { matched_terms: matched }),
  };
}

function invalid(message: string, path: string, detail: string): OperationError {
  return new OperationError('invalid_input', 'invalid_request', message, { details: [{ path, message: detail }] });
}

/**
 * Maps obligations, named by id or by free-text terms, across the four regimes.
 *
 * @param request - `{from_regime, obligations}` or `{from_regime, terms}` (exactly one of the two lists).
 * @returns For each obligation its cell in every regime, the receipt fields that evidence it and
 *   its sources; for terms, also which terms matched it and which matched nothing.
 * @throws OperationError invalid_request for an unknown regime or obligation, a repeated
 *   obligation, or a list that is missing, empty or too long (each with its JSON Pointer).
 */
export function normalizeObligations(request: RosettaRequest): RosettaAnswer {
  if (!isRecord(request))
    throw invalid('The request is an object {from_regime, obligations} or {from_regime, terms}.', '', 'not an object');
  const from = request.from_regime;
  if (typeof from !== 'string' || !(ROSETTA_REGIMES as readonly string[]).includes(from)) {
    throw invalid(`from_regime must be one of ${ROSETTA_REGIMES.join(', ')}.`, '/from_regime', 'unknown regime');
  }
  const regime = from as RosettaRegime;
  const hasObligations = 'obligations' in request;
  const hasTerms = 'terms' in request;
  if (hasObligations === hasTerms)
    throw invalid(
      'Give either obligations (ids) or terms (free text), not both and not neither.',
      '',
      'needs exactly one of obligations and terms',
    );
  const list: unknown = hasObligations ? request.obligations : (request as { terms: unknown }).terms;
  const listPath = hasObligations ? '/obligations' : '/terms';
  if (!Array.isArray(list) || list.length === 0 || list.length > MAX_ROSETTA_ITEMS) {
    throw invalid(
      `${listPath.slice(1)} is a list of 1 to ${MAX_ROSETTA_ITEMS} strings.`,
      listPath,
      'not a list of the right length',
    );
  }
  const base = { pilot: true as const, table_version: ROSETTA_TABLE.table_version, from_regime: regime };
  const tail = { sources: ROSETTA_TABLE.regimes, disclaimer: ROSETTA_DISCLAIMER };

  if (hasObligations) {
    const seen = new Set<string>();
    const rows = list.map((id: unknown, index) => {
      const row =
        typeof id === 'string' ? ROSETTA_TABLE.obligations.find((candidate) => candidate.id === id) : undefined;
      if (row === undefined) {
        throw invalid(
          `Unknown obligation ${JSON.stringify(String(id).slice(0, 80))}; known: ${ROSETTA_OBLIGATION_IDS.join(', ')}.`,
          `/obligations/${index}`,
          'unknown obligation',
        );
      }
      if (seen.has(row.id))
        throw invalid(`The obligation ${row.id} is named twice.`, `/obligations/${index}`, 'repeated obligation');
      seen.add(row.id);
      return row;
    });
    return { ...base, obligations: rows.map((row) => answerRow(row, regime)), ...tail };
  }

  const matchedBy = new Map<string, string[]>();
  const unmatched: string[] = [];
  list.forEach((term: unknown, index) => {
    if (typeof term !== 'string' || term.length === 0 || term.length > MAX_TERM_LENGTH) {
      throw invalid(`A term is 1 to ${MAX_TERM_LENGTH} characters of text.`, `/terms/${index}`, 'not a term');
    }
    const ids = matchTerm(term);
    if (ids.length === 0 && !unmatched.includes(term)) unmatched.push(term);
    for (const id of ids) {
      const terms = matchedBy.get(id) ?? [];
      if (!terms.includes(term)) terms.push(term);
      matchedBy.set(id, terms);
    }
  });
  // Table order, so the answer does not depend on which term happened to come first.
  const obligations = ROSETTA_TABLE.obligations
    .filter((row) => matchedBy.has(row.id))
    .map((row) => answerRow(row, regime, matchedBy.get(row.id)));
  return { ...base, obligations, unmatched_terms: unmatched, ...tail };
}
