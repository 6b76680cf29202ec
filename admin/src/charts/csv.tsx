import { words } from '../i18n/words.ts';

/**
 * Downloads rows the page already shows as a CSV file. The text is csv-stringify's (never CSV
 * written by hand), loaded on the first download: most visits never need it.
 */
async function downloadCsv(name: string, header: string[], rows: (string | number | null)[][]): Promise<void> {
  const { stringify } = await import('csv-stringify/browser/esm/sync');
  const url = URL.createObjectURL(new Blob([stringify([header, ...rows])], { type: 'text/csv;charset=utf-8' }));
  const link = document.createElement('a');
  link.href = url;
  link.download = name;
  link.click();
  setTimeout(() => URL.revokeObjectURL(url), 0);
}

/** The button for downloadCsv, named for what it downloads. */
export function CsvButton({ name, header, rows, label }: { name: string; header: string[]; rows: (string | number | null)[][]; label: string }) {
  return (
    <button type="button" onClick={() => void downloadCsv(name, header, rows)} aria-label={`${words.table.csv}: ${label}`}>{words.table.csv}</button>
  );
}
