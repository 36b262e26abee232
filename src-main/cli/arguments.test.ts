import { describe, expect, it } from 'vitest';
import { CliError } from './cli-error';
import {
  flag,
  formatHelp,
  HelpRequested,
  optionValue,
  optionValues,
  parseCommandArguments,
  type CommandSpec,
} from './arguments';

const spec: CommandSpec = {
  name: 'demo',
  summary: 'A command for the parser tests.',
  usage: 'evroom demo [options] FILE...',
  description: [],
  options: {
    'public-key': { type: 'string', value: 'B64U', help: 'a key' },
    label: { type: 'string', short: 'l', help: 'a label' },
    in: { type: 'string', multiple: true, help: 'inputs' },
    json: { type: 'boolean', help: 'JSON output' },
  },
};

function parse(argv: string[]): ReturnType<typeof parseCommandArguments> {
  return parseCommandArguments(spec, argv);
}

function usageError(argv: string[]): string {
  try {
    parse(argv);
  } catch (error) {
    if (error instanceof CliError) return error.message;
    throw error;
  }
  throw new Error(`no error for ${argv.join(' ')}`);
}

describe('parseCommandArguments', () => {
  it("takes the next argument as a string option's value even when it starts with -", () => {
    const parsed = parse(['--public-key', '-abc_DEF', '--label', '--json', 'file.json']);
    expect(optionValue(parsed, 'public-key')).toBe('-abc_DEF');
    // getopt's rule: the value is whatever comes next, an option's name included.
    expect(optionValue(parsed, 'label')).toBe('--json');
    expect(flag(parsed, 'json')).toBe(false);
    expect(parsed.positionals).toEqual(['file.json']);
    expect(optionValue(parse(['-l', '-x']), 'label')).toBe('-x');
    expect(optionValue(parse(['--public-key', '-']), 'public-key')).toBe('-');
  });

  it('accepts --name=VALUE, repeated options that may repeat, and operands after --', () => {
    const parsed = parse(['--public-key=-abc', '--in', 'a', '--in=-b', '--json', '--', '--label', '-x']);
    expect(optionValue(parsed, 'public-key')).toBe('-abc');
    expect(optionValues(parsed, 'in')).toEqual(['a', '-b']);
    expect(flag(parsed, 'json')).toBe(true);
    expect(parsed.positionals).toEqual(['--label', '-x']);
    expect(optionValue(parse(['--label=a=b']), 'label')).toBe('a=b');
  });

  it('refuses a value missing at the end, an empty value, a repeated single option and unknown options', () => {
    expect(usageError(['--public-key'])).toMatch(/^demo: option --public-key needs a value/);
    expect(usageError(['x', '-l'])).toMatch(/option --label needs a value/);
    expect(usageError(['--public-key', ''])).toBe('demo: --public-key needs a non-empty value');
    expect(usageError(['--public-key=a', '--public-key', 'b'])).toBe('demo: --public-key may be given only once');
    expect(usageError(['--frobnicate'])).toMatch(/unknown option --frobnicate/);
    expect(usageError(['--json=yes'])).toMatch(/^demo: /);
  });

  it('asks for help only where an option may stand, not as a value', () => {
    expect(() => parse(['--help'])).toThrow(HelpRequested);
    expect(() => parse(['file', '-h'])).toThrow(HelpRequested);
    expect(optionValue(parse(['--label', '--help']), 'label')).toBe('--help');
    expect(parse(['--', '-h']).positionals).toEqual(['-h']);
    expect(formatHelp(spec)).toContain('--public-key B64U');
  });
});
