/**
 * Documents as the program writes them: two-space indented JSON with number spellings kept.
 *
 * Moved from src-main/cli/commands/sign.ts unchanged, so the samples (operations) and `evroom
 * sign` (the CLI) write documents alike without the operations layer importing a door.
 */
import { fromPlain, parseJsonTree } from '../../src-shared/json';
import type { JsonNode, JsonValue } from '../../src-shared/json/types';

/**
 * Write a document as two-space indented JSON ending with a newline.
 *
 * Given JSON text, number spellings are kept exactly (`1.50` stays `1.50`), so a classical
 * receipt still verifies once indented; given plain values, numbers are written as JavaScript
 * prints them (JCS's form).
 *
 * @param document - JSON text or plain values.
 * @returns The indented text.
 * @throws JsonParseError if the text is not strict JSON.
 * @throws TypeError if the plain value is not JSON.
 */
export function formatJsonDocument(document: string | JsonValue): string {
  const tree = typeof document === 'string' ? parseJsonTree(document) : fromPlain(document);
  return `${formatNode(tree, '')}\n`;
}

function formatNode(node: JsonNode, indent: string): string {
  const inner = `${indent}  `;
  switch (node.type) {
    case 'null':
      return 'null';
    case 'boolean':
      return String(node.value);
    case 'number':
      return node.lexeme;
    case 'string':
      return JSON.stringify(node.value);
    case 'array':
      if (node.items.length === 0) return '[]';
      return `[\n${node.items.map((item) => inner + formatNode(item, inner)).join(',\n')}\n${indent}]`;
    case 'object':
      if (node.members.length === 0) return '{}';
      return `{\n${node.members.map(([name, value]) => `${inner}${JSON.stringify(name)}: ${formatNode(value, inner)}`).join(',\n')}\n${indent}}`;
  }
}
