import { createHash, type Hash } from 'node:crypto';
import { createReadStream, openSync, readSync, closeSync } from 'node:fs';

// Reading an import file as a stream: memory stays flat whatever its size. The bytes are hashed
// (the file's fingerprint) and decoded as strict UTF-8 on the way; CSV goes through csv-parse,
// JSON lines through a line splitter. Anything that makes the file unreadable as a whole (its
// encoding, broken quoting, a record too long) throws FileProblem, which stops the import before
// it writes anything.

/** A record longer than this is not a member: a field of megabytes means a broken file. */
const MAX_RECORD_BYTES = 1024 * 1024;

export class FileProblem extends Error {
  constructor(message: string, readonly line?: number) {
    super(message);
  }
}

export type FileFormat = 'csv' | 'jsonl';

/**
 * One record: the line it starts on, and its fields (CSV) or its text (a JSON line); `read` is how
 * far into the file the parser is (characters, which is bytes for ASCII): progress is measured by it.
 */
export type FileRecord = { line: number; read: number } & ({ fields: string[]; text?: undefined } | { text: string; fields?: undefined });

/** What reading the file found out along the way. */
export interface ReadState {
  hash: Hash;
}

/** The first bytes of the file, to tell its encoding and delimiter before parsing. */
function head(path: string): Buffer {
  const fd = openSync(path, 'r');
  try {
    const buffer = Buffer.alloc(64 * 1024);
    return buffer.subarray(0, readSync(fd, buffer, 0, buffer.length, 0));
  } finally {
    closeSync(fd);
  }
}

/** Refuses what is not UTF-8 text at a glance: UTF-16 (Excel's "Unicode text"), binary files. */
export function sniffEncoding(path: string): void {
  const bytes = head(path);
  if ((bytes[0] === 0xff && bytes[1] === 0xfe) || (bytes[0] === 0xfe && bytes[1] === 0xff)) {
    throw new FileProblem('the file is UTF-16 text; save it as UTF-8 ("CSV UTF-8" in Excel, the default in Google Sheets and LibreOffice) and import that');
  }
  if (bytes.includes(0)) throw new FileProblem('the file holds NUL bytes: it is not UTF-8 text (UTF-16, or not a CSV file at all)');
}

/** The delimiter of a CSV file: whichever of comma, semicolon and tab its header line (outside quotes) holds most. */
export function sniffDelimiter(path: string): ',' | ';' | '\t' {
  const text = head(path).toString('utf8');
  const counts = { ',': 0, ';': 0, '\t': 0 };
  let quoted = false;
  for (const char of text) {
    if (char === '"') quoted = !quoted;
    else if (!quoted && (char === '\n' || char === '\r')) break;
    else if (!quoted && char in counts) counts[char as keyof typeof counts]++;
  }
  const [best] = (Object.entries(counts) as [',' | ';' | '\t', number][]).sort((a, b) => b[1] - a[1]);
  return best![1] > 0 ? best![0] : ',';
}

/** The offset of the first byte that is not valid UTF-8, for the error's line number. */
function firstInvalidUtf8(bytes: Buffer): number {
  for (let i = 0; i < bytes.length;) {
    const b = bytes[i]!;
    const length = b < 0x80 ? 1 : b >= 0xc2 && b < 0xe0 ? 2 : b >= 0xe0 && b < 0xf0 ? 3 : b >= 0xf0 && b < 0xf5 ? 4 : 0;
    if (length === 0) return i;
    for (let k = 1; k < length; k++) {
      if (i + k >= bytes.length) return bytes.length; // cut by the chunk's end: the next chunk decides
      if ((bytes[i + k]! & 0xc0) !== 0x80) return i;
    }
    i += length;
  }
  return bytes.length;
}

const countLines = (bytes: Buffer, end = bytes.length) => {
  let lines = 0;
  for (let at = bytes.indexOf(10); at !== -1 && at < end; at = bytes.indexOf(10, at + 1)) lines++;
  return lines;
};

/** The file's text, chunk by chunk: hashed and decoded as it is read; invalid UTF-8 stops it, naming the line. */
async function* decoded(path: string, state: ReadState): AsyncGenerator<string> {
  const decoder = new TextDecoder('utf-8', { fatal: true });
  let lines = 1;
  for await (const chunk of createReadStream(path, { highWaterMark: 64 * 1024 }) as AsyncIterable<Buffer>) {
    state.hash.update(chunk);
    try {
      yield decoder.decode(chunk, { stream: true });
    } catch {
      const line = lines + countLines(chunk, firstInvalidUtf8(chunk));
      throw new FileProblem('the file is not UTF-8 text (Windows-1252 or Latin-1, most likely); save it as UTF-8 ("CSV UTF-8" in Excel) and import that', line);
    }
    lines += countLines(chunk);
  }
  try {
    yield decoder.decode();
  } catch {
    throw new FileProblem('the file ends in the middle of a UTF-8 character: it is cut short, or not UTF-8 text', lines);
  }
}

/** csv-parse's errors as FileProblems: the line, and what a shop owner can do about it. */
function csvProblem(error: { code?: string; message: string; lines?: number }): FileProblem {
  if (error.code === 'CSV_MAX_RECORD_SIZE') {
    return new FileProblem(`a record is longer than ${MAX_RECORD_BYTES / 1024 / 1024} MB: the file's quotes are unbalanced, or it is not a CSV file of members`, error.lines);
  }
  return new FileProblem(`the file cannot be read as CSV: ${error.message.replace(/^Invalid Record Length: |, got \d+ on line \d+$/g, '')}`, error.lines);
}

/**
 * The CSV records, a chunk of the file at a time (one promise per record cost a fifth of an
 * import's CPU): the header first. `line` is where a record starts: lines are counted here, since
 * csv-parse counts a CRLF inside quotes as two, and empty lines are skipped here, not by csv-parse,
 * so they count too. Its `info` option, which would give both, cost another tenth.
 */
async function* csvRecords(path: string, delimiter: string, state: ReadState): AsyncGenerator<FileRecord[]> {
  // Loaded here, not at start-up: every other command would pay for it.
  const { parse } = await import('csv-parse');
  const parser = parse({ bom: true, delimiter, trim: true, relax_column_count: true, max_record_size: MAX_RECORD_BYTES });
  let batch: FileRecord[] = [];
  let failure: unknown;
  let line = 1;
  let read = 0;
  parser.on('data', (fields: string[]) => {
    const start = line;
    let length = fields.length;
    for (const field of fields) {
      length += field.length;
      if (field.includes('\n') || field.includes('\r')) line += field.match(/\r\n|\r|\n/g)!.length;
    }
    line++;
    read += length;
    if (fields.length > 1 || fields[0] !== '') batch.push({ line: start, read, fields });
  });
  parser.on('error', (error) => { failure ??= error; });
  const ended = new Promise((resolve) => parser.once('end', resolve).once('error', resolve));
  const take = () => {
    if (failure) throw failure instanceof FileProblem ? failure : csvProblem(failure as { message: string });
    const taken = batch;
    batch = [];
    return taken;
  };
  try {
    for await (const text of decoded(path, state)) {
      parser.write(text);
      yield take();
    }
  } catch (error) {
    parser.destroy();
    throw error;
  }
  parser.end();
  await ended;
  yield take();
}

/** JSON lines: each non-empty line one record, at most MAX_RECORD_BYTES long; a chunk of the file at a time. */
async function* jsonLines(path: string, state: ReadState): AsyncGenerator<FileRecord[]> {
  let pending = '';
  let line = 1;
  let read = 0;
  let first = true;
  for await (let text of decoded(path, state)) {
    if (first && text.startsWith('\ufeff')) text = text.slice(1);
    first = false;
    pending += text;
    const batch: FileRecord[] = [];
    let at = pending.indexOf('\n');
    while (at !== -1) {
      const content = pending.slice(0, at).replace(/\r$/, '');
      read += at + 1;
      if (content.trim() !== '') batch.push({ line, read, text: content });
      line++;
      pending = pending.slice(at + 1);
      at = pending.indexOf('\n');
    }
    if (pending.length > MAX_RECORD_BYTES) throw new FileProblem(`a line is longer than ${MAX_RECORD_BYTES / 1024 / 1024} MB: it is not a JSON line of a member`, line);
    yield batch;
  }
  if (pending.trim() !== '') yield [{ line, read: read + pending.length, text: pending }];
}

/** Reads the file once, start to end, a chunk's records at a time. */
export function readFile(path: string, format: FileFormat, delimiter: string, state: ReadState): AsyncGenerator<FileRecord[]> {
  return format === 'csv' ? csvRecords(path, delimiter, state) : jsonLines(path, state);
}

export const newReadState = (): ReadState => ({ hash: createHash('sha256') });
