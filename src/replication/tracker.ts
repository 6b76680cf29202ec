/** One line of Litestream's JSON log. */
export interface LogLine {
  time: string;
  level: string;
  msg: string;
  [attribute: string]: unknown;
}

/** A Litestream position, "generation/index:offset" (index in hex, offset in bytes of the shadow WAL). */
interface Position {
  generation: string;
  index: number;
  offset: number;
}

function parsePosition(text: unknown): Position | null {
  const match = typeof text === 'string' ? /^([0-9a-f]+)\/([0-9a-f]{8}):(\d+)$/.exec(text) : null;
  return match ? { generation: match[1]!, index: Number.parseInt(match[2]!, 16), offset: Number(match[3]) } : null;
}

const atOrBeyond = (a: Position, b: Position) =>
  a.generation === b.generation && (a.index > b.index || (a.index === b.index && a.offset >= b.offset));

/**
 * Works out from Litestream v0.3's own log the last moment at which the replica held every commit.
 *
 * Litestream copies the WAL into its shadow WAL once per monitor interval (log lines "sync" …
 * "sync: ok"), then ships the shadow WAL to the replica ("replica sync" with the shadow position,
 * then "wal segment written" or "snapshot written" with a start position and size). So: a commit
 * acknowledged before a "sync" line is in the shadow WAL after its "sync: ok"; once the replica
 * reaches the shadow position logged by the next "replica sync", it holds that commit. A "sync"
 * that copied nothing while the replica already had the whole shadow WAL moves the moment on too,
 * so an idle database does not look like a stalled replica.
 */
export class SyncTracker {
  /** Every commit acknowledged before this moment is in the replica. */
  syncedThrough: Date | null = null;
  #syncStart: Date | null = null;
  #copied = false;
  #shadowThrough: Date | null = null;
  /** Counts the "sync"s that copied frames, so "the replica has all of the shadow WAL" is a comparison. */
  #shadowVersion = 0;
  #replicaVersion = -1;
  #target: { position: Position; through: Date | null; version: number } | null = null;

  /** A new Litestream process: what the old one had in flight is unknown. */
  restarted(): void {
    this.#syncStart = null;
    this.#shadowThrough = null;
    this.#replicaVersion = -1;
    this.#target = null;
  }

  /** A "copy-shadow: ok" line: frames went into the shadow WAL. */
  copied(): void {
    this.#copied = true;
  }

  line(line: LogLine): void {
    const time = new Date(line.time);
    switch (line.msg) {
      case 'sync':
        this.#syncStart = time;
        this.#copied = false;
        break;
      case 'sync: new generation':
        this.#copied = true;
        break;
      case 'sync: ok':
        if (!this.#syncStart) break;
        if (this.#copied) this.#shadowVersion++;
        this.#shadowThrough = this.#syncStart;
        if (this.#replicaVersion === this.#shadowVersion) this.#advance(this.#syncStart);
        this.#syncStart = null;
        break;
      case 'replica sync': {
        const position = parsePosition(line.position);
        this.#target = position ? { position, through: this.#shadowThrough, version: this.#shadowVersion } : null;
        break;
      }
      case 'replica sync: calc new pos':
      case 'snapshot written':
        this.#reached(parsePosition(line.position));
        break;
      case 'wal segment written': {
        const start = parsePosition(line.position);
        this.#reached(start && typeof line.sz === 'number' ? { ...start, offset: start.offset + line.sz } : null);
        break;
      }
    }
  }

  #reached(position: Position | null): void {
    const target = this.#target;
    if (!target || !position || !atOrBeyond(position, target.position)) return;
    this.#replicaVersion = target.version;
    if (target.through) this.#advance(target.through);
  }

  #advance(moment: Date): void {
    if (!this.syncedThrough || moment > this.syncedThrough) this.syncedThrough = moment;
  }
}
