/**
 * Format detection: which kind of document is this?
 *
 * Detection only looks at a document's shape (PROTOCOL section 1 lists the formats); it does not
 * validate. A document that looks like a format but breaks its schema is reported as that format
 * with status MALFORMED, which tells the user far more than "unknown".
 */
import type { JsonNode } from '../json/types';
import type { FormatModule } from './format-module';
import { formatModules } from './registry';
import type { ReportFormat } from './report';

/** A detected format with the module that verifies it. */
export interface Detection {
  format: ReportFormat;
  module: FormatModule;
}

/**
 * Detect a document's format.
 *
 * @param node - A parsed document (a tree from the strict parser, or `fromPlain` of a value).
 * @returns The format of the first registered module that recognizes it, or `unknown`.
 * @example detectFormat(parseJsonTree('{"v":"svc-receipt-v1","signatures":{}}')) // 'envelope/svc-receipt-v1'
 */
export function detectFormat(node: JsonNode): ReportFormat {
  return detectModule(node)?.format ?? 'unknown';
}

/**
 * Detect a document's format and the module that verifies it.
 *
 * @param node - A parsed document.
 * @param modules - The table to consult; the registry by default.
 * @returns The detection, or undefined for an unknown document.
 */
export function detectModule(
  node: JsonNode,
  modules: readonly FormatModule[] = formatModules(),
): Detection | undefined {
  for (const module of modules) {
    const format = module.detect(node);
    if (format !== undefined) return { format, module };
  }
  return undefined;
}

/**
 * The names of the formats the registry knows, for messages.
 *
 * @returns E.g. `['sealed', 'countersigner', 'classical', ...]`.
 */
export function knownFormatNames(): string[] {
  return formatModules().map((module) => module.name);
}
