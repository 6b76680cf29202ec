import type { Command, Option } from 'commander';
import { parseDuration } from './output.ts';

/**
 * Settings given as a flag or a PUNCHCARD_* environment variable. Declare one with commander's
 * `new Option('--x <value>', '…').env('PUNCHCARD_X').default('…')` (a bare `--x` for a boolean)
 * and read it with `setting(command, 'x', parser)`: a value that does not parse stops start-up
 * with a message naming the variable or the flag it came from, never a silent default. An empty
 * variable counts as unset. Parsers throw an Error whose message completes "PUNCHCARD_X (--x): …".
 */
export type Parse<T> = (text: string) => T;

const TRUE = ['true', '1', 'yes'];
const FALSE = ['false', '0', 'no'];

export const parseBoolean: Parse<boolean> = (text) => {
  const word = text.trim().toLowerCase();
  if (TRUE.includes(word)) return true;
  if (FALSE.includes(word)) return false;
  throw new Error(`must be one of true, false, 1, 0, yes, no (got "${text}")`);
};

export const parsePort: Parse<number> = (text) => {
  if (!/^\d{1,5}$/.test(text.trim()) || Number(text) > 65_535) throw new Error(`must be a port number from 0 to 65535, 0 picking a free one (got "${text}")`);
  return Number(text);
};

export const parseCount: Parse<number> = (text) => {
  if (!/^\d+$/.test(text.trim()) || !Number.isSafeInteger(Number(text)) || Number(text) <= 0) throw new Error(`must be a positive whole number (got "${text}")`);
  return Number(text);
};

export { parseDuration };

/** http(s) URLs and the like; the value is not repeated in the message, as a URL may carry a password. */
export const parseUrl: Parse<string> = (text) => {
  if (!URL.canParse(text.trim())) throw new Error('must be an absolute URL such as https://loyalty.example.com');
  return text.trim();
};

export const parseChoice = <T extends string>(...choices: T[]): Parse<T> => (text) => {
  const word = text.trim().toLowerCase();
  if (!(choices as string[]).includes(word)) throw new Error(`must be one of ${choices.join(', ')} (got "${text}")`);
  return word as T;
};

/** The option of `command` (or of a parent: --db is global) whose attribute name is `name`. */
function findOption(command: Command, name: string): { owner: Command; option: Option } {
  for (let owner: Command | null = command; owner; owner = owner.parent) {
    const option = owner.options.find((candidate) => candidate.attributeName() === name);
    if (option) return { owner, option };
  }
  throw new Error(`no option "${name}" on "${command.name()}"`);
}

/**
 * The parsed value of a setting: from the flag if given, else from its environment variable
 * (parsed from the text, so a boolean's `false` stays false), else from its default. Undefined
 * when none of them is set.
 */
export function setting<T>(command: Command, name: string, parse: Parse<T>): T | undefined {
  const { owner, option } = findOption(command, name);
  const source = owner.getOptionValueSource(name);
  const envText = option.envVar === undefined ? undefined : process.env[option.envVar];
  const fromEnv = source === 'env' && envText !== undefined && envText.trim() !== '';
  const value: unknown = fromEnv ? envText : source === 'env' ? option.defaultValue : owner.getOptionValue(name);
  if (value === undefined) return undefined;
  if (typeof value === 'boolean') return value as T; // a bare flag (--x or --no-x) on the command line
  const flag = option.long ?? option.flags;
  const named = fromEnv ? `${option.envVar} (${flag})` : source === 'cli' ? flag : `the default of ${flag}`;
  try {
    return parse(String(value));
  } catch (error) {
    throw new Error(`${named}: ${(error as Error).message}`);
  }
}
