import { IMPORT_FIELDS, type ImportSource } from './columns.ts';

/**
 * Punchcard's own columns (`--from csv`): the import fields by name, as `members export` writes
 * them (its totalPointsEarned and levelName are read and left unused, so an export imports as it
 * is). Any other column stops the import: a typo such as `balence` would otherwise drop data.
 */
export const punchcardCsv: ImportSource = {
  name: 'csv',
  label: 'CSV',
  columns: Object.fromEntries(IMPORT_FIELDS.map((field) => [field, [field]])),
  unused: ['totalPointsEarned', 'levelName'],
  needs: [['externalId', 'email']],
  recognises: (keys) => keys.has('externalid') || keys.has('balance'),
  otherColumns: 'refuse',
};
