// Progress of a long import on stderr: on a terminal one line redrawn in place (rows, rate, time
// left); otherwise (a log, a service manager, a test) one line per tenth of the file, so a log never
// fills with carriage returns. Progress is measured in bytes read, so it needs no count of the rows
// before the end.

const REDRAW_MS = 250;

export interface Progress {
  /** `rows` done so far, `bytes` of the file read. */
  update(rows: number, bytes: number): void;
  done(rows: number): void;
}

const thousands = (n: number) => n.toLocaleString('en-US');

function timeLeft(seconds: number): string {
  if (!Number.isFinite(seconds)) return '?';
  if (seconds < 90) return `${Math.max(1, Math.round(seconds))} s`;
  return `${Math.round(seconds / 60)} min`;
}

/** `label` says what is done ("checking members.csv"); `size` is the file's size in bytes. */
export function progress(label: string, size: number, now: () => number = () => performance.now()): Progress {
  const started = now();
  const tty = process.stderr.isTTY === true;
  let lastDraw = 0;
  let lastTenth = 0;
  const line = (rows: number, bytes: number) => {
    const seconds = (now() - started) / 1000;
    const fraction = size > 0 ? Math.min(bytes / size, 1) : 1;
    const rate = seconds > 0 ? rows / seconds : 0;
    const left = fraction > 0 ? (seconds / fraction) * (1 - fraction) : Number.POSITIVE_INFINITY;
    return `${label}: ${Math.floor(fraction * 100)}%, ${thousands(rows)} rows, ${thousands(Math.round(rate))} rows/s, ${timeLeft(left)} left`;
  };
  return {
    update(rows, bytes) {
      if (tty) {
        const at = now();
        if (at - lastDraw < REDRAW_MS) return;
        lastDraw = at;
        process.stderr.write(`\r${line(rows, bytes)}\u001b[K`);
        return;
      }
      const tenth = size > 0 ? Math.floor((bytes / size) * 10) : 0;
      if (tenth > lastTenth && tenth < 10) {
        lastTenth = tenth;
        process.stderr.write(`${line(rows, bytes)}\n`);
      }
    },
    done(rows) {
      const seconds = (now() - started) / 1000;
      const text = `${label}: done, ${thousands(rows)} rows in ${seconds.toFixed(1)} s`;
      process.stderr.write(tty ? `\r${text}\u001b[K\n` : `${text}\n`);
    },
  };
}
