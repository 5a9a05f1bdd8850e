import type { ImportProgress } from './import-stream.js';

/**
 * Progress of a long write on stderr: `import` and `seed` alike. A terminal gets one line redrawn
 * in place (a bar when the share done is known, rows, rows/s, ETA); anything else (a log file, CI)
 * gets a plain line every few seconds.
 */
export interface ProgressReporter {
  update(p: Progress): void;
  /** Clears the redrawn line, so what follows starts on a clean line. */
  done(): void;
}

export interface Progress {
  rows: number;
  elapsedMs: number;
  /** The share of the whole that is done (0..1), when the whole is known: gives the bar and the ETA. */
  share?: number;
  /** What the share is of, for a plain line: `input`, `1,200,000 rows`. */
  of?: string;
  rejected?: number;
}

/** Where a reporter writes: a stream, or anything with `write` (a logger's adapter). */
export type ProgressOut = Pick<NodeJS.WriteStream, 'write'> & { isTTY?: boolean; columns?: number };

export const grouped = (n: number) => Math.round(n).toLocaleString('en-US');

function duration(seconds: number): string {
  if (!Number.isFinite(seconds)) return '?';
  const s = Math.max(0, Math.round(seconds));
  if (s < 60) return `${s}s`;
  if (s < 3600) return `${Math.floor(s / 60)}m${String(s % 60).padStart(2, '0')}s`;
  return `${Math.floor(s / 3600)}h${String(Math.floor((s % 3600) / 60)).padStart(2, '0')}m`;
}

function text(p: Progress): string {
  const seconds = p.elapsedMs / 1000;
  const rate = seconds > 0 ? p.rows / seconds : 0;
  const share = p.share === undefined ? undefined : Math.min(1, p.share);
  const eta = share !== undefined && share > 0 ? duration((seconds / share) * (1 - share)) : undefined;
  const rejected = p.rejected ? ` | ${grouped(p.rejected)} rejected` : '';
  return `${grouped(p.rows)} rows | ${grouped(rate)} rows/s${rejected}${eta !== undefined ? ` | ETA ${eta}` : ''}`;
}

/** An import's progress: its share is of the input's bytes, when the input's size is known. */
export const importProgress = (p: ImportProgress): Progress => ({
  rows: p.rows,
  elapsedMs: p.elapsedMs,
  rejected: p.counts.rejected,
  ...(p.totalBytes ? { share: p.bytes / p.totalBytes, of: 'input' } : {}),
});

export function progressReporter(
  label: string,
  out: ProgressOut = process.stderr,
  intervalMs?: number,
): ProgressReporter {
  const tty = Boolean(out.isTTY);
  const every = intervalMs ?? (tty ? 100 : 5_000);
  let last = tty ? 0 : Date.now(); // a log gets its first line after one interval, not at once
  let drawn = false;
  return {
    update(p) {
      const now = Date.now();
      if (now - last < every) return;
      last = now;
      const share = p.share === undefined ? undefined : Math.min(1, p.share);
      if (!tty) {
        out.write(
          `${label}: ${text(p)}${share !== undefined ? ` | ${(share * 100).toFixed(1)}% of ${p.of ?? 'the whole'}` : ''}\n`,
        );
        return;
      }
      const width = 24;
      const bar =
        share !== undefined
          ? `[${'#'.repeat(Math.round(share * width)).padEnd(width, '-')}] ${(share * 100).toFixed(0).padStart(3)}% | `
          : '';
      out.write(`\r\x1b[K${label} ${bar}${text(p)}`.slice(0, (out.columns || 120) + 4));
      drawn = true;
    },
    done() {
      if (drawn) out.write('\r\x1b[K');
      drawn = false;
    },
  };
}
