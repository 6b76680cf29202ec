import { columnKey, type ImportSource, type SourceName } from './columns.ts';
import { loyaltylion } from './loyaltylion.ts';
import { mycred } from './mycred.ts';
import { punchcardCsv } from './punchcard-csv.ts';
import { smile } from './smile.ts';
import { woocommercePoints } from './woocommerce-points.ts';

/** Every reader, in the order a header is tried against them (the most particular first). */
export const IMPORT_SOURCES: readonly ImportSource[] = [loyaltylion, mycred, woocommercePoints, punchcardCsv, smile];

export const SOURCE_NAMES = IMPORT_SOURCES.map((source) => source.name);

export const sourceNamed = (name: SourceName): ImportSource => IMPORT_SOURCES.find((source) => source.name === name)!;

/** The programme whose export a header looks like, or undefined. */
export function guessSource(header: readonly string[]): ImportSource | undefined {
  const keys = new Set(header.map(columnKey));
  return IMPORT_SOURCES.find((source) => source.recognises(keys));
}
