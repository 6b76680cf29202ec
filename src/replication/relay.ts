// One Litestream process, run and read on a worker thread (see superviseLitestream).
import { spawn } from 'node:child_process';
import { parentPort, workerData } from 'node:worker_threads';

export interface RelayData {
  binary: string;
  args: string[];
}

/** From the worker: the child started; lines of its log (stdout) or of stderr, in order; it ended. */
export type RelayMessage =
  | { type: 'spawned'; pid: number | undefined }
  | { type: 'lines'; stream: 'stdout' | 'stderr'; lines: string[] }
  | { type: 'ended'; how: string };

/** Debug lines logged per WAL frame: collapsed into one, as bytes, before anything is decoded. */
const COPIED = Buffer.from('"msg":"copy-shadow: ok"');
const COPY_CHATTER = Buffer.from('"msg":"copy-shadow');

/** Calls `onLines` with the complete lines of each chunk of a stream, as bytes. */
function lines(onLines: (lines: Buffer[]) => void): (chunk: Buffer) => void {
  let rest: Buffer = Buffer.alloc(0);
  return (chunk) => {
    const data = rest.length > 0 ? Buffer.concat([rest, chunk]) : chunk;
    const complete: Buffer[] = [];
    let start = 0;
    for (let end = data.indexOf(10); end !== -1; end = data.indexOf(10, start)) {
      if (end > start) complete.push(data.subarray(start, end));
      start = end + 1;
    }
    rest = data.subarray(start);
    if (complete.length > 0) onLines(complete);
  };
}

if (parentPort) {
  const port = parentPort;
  const { binary, args } = workerData as RelayData;
  const post = (message: RelayMessage) => port.postMessage(message);
  const child = spawn(binary, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  post({ type: 'spawned', pid: child.pid });

  let copying = false;
  child.stdout.on('data', lines((chunk) => {
    const kept: string[] = [];
    for (const line of chunk) {
      const copied = line.includes(COPIED);
      if (copied && !copying) kept.push(line.toString('utf8'));
      copying = copied;
      if (!line.includes(COPY_CHATTER)) kept.push(line.toString('utf8'));
    }
    if (kept.length > 0) post({ type: 'lines', stream: 'stdout', lines: kept });
  }));
  child.stderr.on('data', lines((chunk) => post({ type: 'lines', stream: 'stderr', lines: chunk.map((line) => line.toString('utf8')) })));

  let ended = false;
  const end = (how: string) => {
    if (ended) return;
    ended = true;
    post({ type: 'ended', how });
    port.close();
  };
  child.once('error', (error) => end(error.message));
  // 'close', not 'exit': every line, those of the last sync included, has been read by then.
  child.once('close', (code, signal) => end(signal ? `signal ${signal}` : `code ${code}`));
  port.on('message', (signal: NodeJS.Signals) => child.kill(signal));
}
