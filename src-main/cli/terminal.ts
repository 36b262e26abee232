/**
 * Terminal output helpers: colour only on a TTY and never when NO_COLOR is set.
 */
import type { Writable } from 'node:stream';

export interface Terminal {
  out: Writable;
  err: Writable;
  color: boolean;
  /** Whether stderr is an interactive terminal (progress bars go there). */
  interactive: boolean;
}

const CODES = { red: 31, green: 32, yellow: 33, blue: 34, magenta: 35, cyan: 36, gray: 90, bold: 1, dim: 2 } as const;
export type Colour = keyof typeof CODES;

/**
 * The terminal of this process.
 *
 * @param env environment, consulted for NO_COLOR and FORCE_COLOR
 */
export function processTerminal(env: NodeJS.ProcessEnv = process.env): Terminal {
  const forced = env.FORCE_COLOR !== undefined && env.FORCE_COLOR !== '0';
  const color = forced || (Boolean(process.stdout.isTTY) && env.NO_COLOR === undefined && env.TERM !== 'dumb');
  return { out: process.stdout, err: process.stderr, color, interactive: Boolean(process.stderr.isTTY) };
}

/** Wraps text in an ANSI colour when `enabled`. */
export function paint(enabled: boolean, colour: Colour, text: string): string {
  return enabled ? `\u001b[${CODES[colour]}m${text}\u001b[0m` : text;
}

/** Writes a line to a stream. */
export function writeLine(stream: Writable, line = ''): void {
  stream.write(`${line}\n`);
}
