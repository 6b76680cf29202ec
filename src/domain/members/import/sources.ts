import { columnKey, type ImportSource, type SourceName } from './columns.ts';
import { loyaltylion } from './loyaltylion.ts';
import { mycred } from './mycred.ts';
import { punchcardCsv } from './punchcard-csv.ts';
import { smile } from './smile.ts';
import { woocommercePoints } from './woocommerce-points.ts';

/** Every reader, in the order a header is tried against them (the most particular first). */
export const IMPORT_SOURCES: readonly ImportSource[] = [loyaltylion, mycred, woocommercePoints, punchcardCsv, smile];

/** The names `--from` takes, as the docs list them. */
export const SOURCE_NAMES: readonly SourceName[] = ['smile', 'loyaltylion', 'woocommerce-points', 'mycred', 'csv'];

export const sourceNamed = (name: SourceName): ImportSource => IMPORT_SOURCES.find((source) => source.name === name)!;

/** The programme whose export a header looks like, or undefined. */
export function guessSource(header: readonly string[]): ImportSource | undefined {
  const keys = new Set(header.map(columnKey));
  return IMPORT_SOURCES.find((source) => source.recognises(keys));
}
