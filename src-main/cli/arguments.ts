/**
 * Command specifications and strict argument parsing for the CLI.
 *
 * Every command declares its options once; the same declaration drives parsing (unknown options
 * and missing values are usage errors, exit 2) and the `--help` text.
 */
import { parseArgs } from 'node:util';
import { CliError } from './cli-error';

export interface OptionSpec {
  type: 'boolean' | 'string';
  multiple?: boolean;
  short?: string;
  /** The placeholder shown in help, e.g. FILE. */
  value?: string;
  help: string;
}

export interface CommandSpec {
  name: string;
  summary: string;
  usage: string;
  description: string[];
  options: Record<string, OptionSpec>;
  exitCodes?: string[];
  examples?: string[];
}

/** Thrown when the user asked for help; the caller prints it and exits 0. */
export class HelpRequested extends Error {
  readonly spec: CommandSpec;
  constructor(spec: CommandSpec) {
    super(`help for ${spec.name}`);
    this.name = 'HelpRequested';
    this.spec = spec;
  }
}

export interface ParsedArguments {
  values: Record<string, string | boolean | (string | boolean)[] | undefined>;
  positionals: string[];
}

/** A boolean option's value. */
export function flag(parsed: ParsedArguments, name: string): boolean {
  return parsed.values[name] === true;
}

/** A single string option's value, if given. */
export function optionValue(parsed: ParsedArguments, name: string): string | undefined {
  const value = parsed.values[name];
  return typeof value === 'string' ? value : undefined;
}

/** A repeatable string option's values (empty when not given). */
export function optionValues(parsed: ParsedArguments, name: string): string[] {
  const value = parsed.values[name];
  if (typeof value === 'string') return [value];
  return Array.isArray(value) ? value.filter((item): item is string => typeof item === 'string') : [];
}

/**
 * The arguments with every value of a string option attached to its option (`--name=VALUE`).
 *
 * Node's parseArgs refuses `--public-key -abc` as ambiguous, yet a base64url key or a file name
 * may well start with `-`. The rule here is getopt's: an option declared to take a value takes
 * the next argument as its value, whatever it looks like; a value is missing only when there is
 * no next argument. `--name=VALUE` is accepted as it is. After `--` everything is an operand.
 *
 * @returns The rewritten arguments, and whether -h/--help was given as an option.
 * @throws CliError (exit 2) for a string option at the very end.
 */
function attachValues(spec: CommandSpec, argv: readonly string[]): { args: string[]; help: boolean } {
  const byShort = new Map<string, string>();
  for (const [name, option] of Object.entries(spec.options))
    if (option.short !== undefined) byShort.set(option.short, name);
  const args: string[] = [];
  let help = false;
  for (let index = 0; index < argv.length; index += 1) {
    const token = argv[index] as string;
    if (token === '--') {
      args.push(...argv.slice(index));
      break;
    }
    if (token === '--help' || token === '-h') {
      help = true;
      continue;
    }
    let name: string | undefined;
    if (token.startsWith('--') && !token.includes('=')) name = token.slice(2);
    else if (/^-[^-]$/.test(token)) name = byShort.get(token.slice(1));
    const option = name === undefined ? undefined : spec.options[name];
    if (name === undefined || option?.type !== 'string') {
      args.push(token);
      continue;
    }
    if (index + 1 >= argv.length)
      throw new CliError(`${spec.name}: option --${name} needs a value. See: evroom ${spec.name} --help`);
    index += 1;
    args.push(`--${name}=${argv[index] as string}`);
  }
  return { args, help };
}

/**
 * Parses a command's arguments strictly.
 *
 * An option that takes a value takes the next argument, even one starting with `-` (see
 * attachValues); `--name=VALUE` works too.
 *
 * @throws HelpRequested for -h/--help
 * @throws CliError (exit 2) for an unknown option, a missing value, or a repeated single option
 */
export function parseCommandArguments(spec: CommandSpec, argv: readonly string[]): ParsedArguments {
  const { args, help } = attachValues(spec, argv);
  if (help) throw new HelpRequested(spec);
  const options: Record<string, { type: 'boolean' | 'string'; multiple?: boolean; short?: string }> = {};
  for (const [name, option] of Object.entries(spec.options)) {
    options[name] = {
      type: option.type,
      ...(option.multiple ? { multiple: true } : {}),
      ...(option.short ? { short: option.short } : {}),
    };
  }
  try {
    const parsed = parseArgs({ args, options, allowPositionals: true, strict: true, tokens: true });
    const given = new Map<string, number>();
    for (const token of parsed.tokens)
      if (token.kind === 'option') given.set(token.name, (given.get(token.name) ?? 0) + 1);
    for (const [name, option] of Object.entries(spec.options)) {
      const value = parsed.values[name];
      // parseArgs keeps the last of a repeated single option; two values for one is a mistake.
      if (option.type === 'string' && !option.multiple && (given.get(name) ?? 0) > 1) {
        throw new CliError(`${spec.name}: --${name} may be given only once`);
      }
      if (option.type === 'string' && value === '')
        throw new CliError(`${spec.name}: --${name} needs a non-empty value`);
    }
    return { values: parsed.values, positionals: parsed.positionals };
  } catch (error) {
    if (error instanceof CliError) throw error;
    throw new CliError(`${spec.name}: ${describeParseError(error)}. See: evroom ${spec.name} --help`);
  }
}

function describeParseError(error: unknown): string {
  const code = (error as { code?: string }).code;
  const message = error instanceof Error ? error.message : String(error);
  const option = /'([^']+)'/.exec(message)?.[1];
  switch (code) {
    case 'ERR_PARSE_ARGS_UNKNOWN_OPTION':
      return `unknown option ${option ?? message}`;
    case 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE':
      return option ? `option ${option} needs a value` : message;
    case 'ERR_PARSE_ARGS_UNEXPECTED_POSITIONAL':
      return `unexpected argument ${option ?? message}`;
    default:
      return message;
  }
}

/** The `--help` text of a command. */
export function formatHelp(spec: CommandSpec): string {
  const lines = [`${spec.summary}`, '', `Usage: ${spec.usage}`, '', ...spec.description];
  const entries = Object.entries(spec.options);
  if (entries.length > 0) {
    lines.push('', 'Options:');
    const labels = entries.map(([name, option]) => {
      const short = option.short ? `-${option.short}, ` : '';
      return `${short}--${name}${option.type === 'string' ? ` ${option.value ?? 'VALUE'}` : ''}`;
    });
    const width = Math.max(...labels.map((label) => label.length), '-h, --help'.length);
    entries.forEach(([, option], index) => {
      const repeat = option.multiple ? ' (may be repeated)' : '';
      lines.push(`  ${(labels[index] ?? '').padEnd(width)}  ${option.help}${repeat}`);
    });
    lines.push(`  ${'-h, --help'.padEnd(width)}  show this help`);
  }
  if (spec.exitCodes?.length) lines.push('', 'Exit codes:', ...spec.exitCodes.map((line) => `  ${line}`));
  if (spec.examples?.length) lines.push('', 'Examples:', ...spec.examples.map((line) => `  ${line}`));
  return lines.join('\n');
}

/**
 * Parse a positive integer option.
 *
 * Here, not beside the ledger commands, so that `evroom verify` loads no ledger view (and
 * through it no chain client) to read its --jobs.
 *
 * @throws CliError (exit 2) unless the value is an integer in [min, max]
 */
export function integerOption(
  command: string,
  parsed: ParsedArguments,
  name: string,
  min: number,
  max: number,
): number | undefined {
  const value = optionValue(parsed, name);
  if (value === undefined) return undefined;
  if (!/^\d+$/.test(value) || !Number.isSafeInteger(Number(value)) || Number(value) < min || Number(value) > max) {
    throw new CliError(`${command}: --${name} must be a whole number from ${min} to ${max}, got "${value}"`);
  }
  return Number(value);
}
