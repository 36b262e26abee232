/**
 * Container nodes made by the strict parser, which remember whether their source text is
 * already canonical.
 *
 * Most signed documents are written by a canonicalizer: no whitespace, members sorted, strings
 * without escapes. For such an object or array, SKP (and often JCS) of the node is exactly the
 * slice of the input it was parsed from, so the serializers can answer with that slice instead
 * of writing the same text again. The parser decides this while reading (it sees every
 * whitespace run, escape, member order and number spelling), so the check costs nearly nothing.
 *
 * The source is held in private fields: a parsed node still compares equal (`toEqual`) to the
 * same tree written as object literals, and nothing outside this module can forge or change it.
 * Trees are immutable by type (`readonly`), which is what keeps the remembered text true.
 */
import type { JsonArrayNode, JsonNode, JsonObjectNode } from './types';

/**
 * How far a node's source text is canonical: {@link NOT_CANONICAL} (whitespace, an escape or
 * unsorted members somewhere inside), {@link SKP_FORM} (as JCS writes it, except that numbers are
 * as spelled, which SKP keeps) or {@link JCS_FORM} (every number also spelled as JCS writes it).
 */
export type SourceForm = 0 | 1 | 2;
export const NOT_CANONICAL = 0;
export const SKP_FORM = 1;
export const JCS_FORM = 2;

/** Where a parsed container's text lies, and how far it is canonical. */
abstract class ParsedContainer {
  readonly #text: string;
  readonly #start: number;
  readonly #end: number;
  readonly #form: SourceForm;

  protected constructor(text: string, start: number, end: number, form: SourceForm) {
    this.#text = text;
    this.#start = start;
    this.#end = end;
    this.#form = form;
  }

  static sourceOf(node: JsonNode, form: typeof SKP_FORM | typeof JCS_FORM): string | undefined {
    if (!(#form in node) || node.#form < form) return undefined;
    return node.#text.slice(node.#start, node.#end);
  }
}

/** An object node from the parser. */
export class ParsedObjectNode extends ParsedContainer implements JsonObjectNode {
  readonly type = 'object';

  constructor(
    readonly members: readonly (readonly [name: string, value: JsonNode])[],
    text: string,
    start: number,
    end: number,
    form: SourceForm,
  ) {
    super(text, start, end, form);
  }
}

/** An array node from the parser. */
export class ParsedArrayNode extends ParsedContainer implements JsonArrayNode {
  readonly type = 'array';

  constructor(
    readonly items: readonly JsonNode[],
    text: string,
    start: number,
    end: number,
    form: SourceForm,
  ) {
    super(text, start, end, form);
  }
}

/**
 * The source text of a parsed container when it is already in the requested canonical form.
 *
 * @param node - Any tree node.
 * @param form - {@link SKP_FORM} for `skp`, {@link JCS_FORM} for `jcsTree`.
 * @returns The exact text the serializer would write, or undefined when it must be written.
 */
export function canonicalSource(node: JsonNode, form: typeof SKP_FORM | typeof JCS_FORM): string | undefined {
  return node.type === 'object' || node.type === 'array' ? ParsedContainer.sourceOf(node, form) : undefined;
}
