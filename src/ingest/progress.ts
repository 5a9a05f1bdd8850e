import type { ImportProgress } from './import-stream.js';

/**
 * Import progress on stderr. A terminal gets one line redrawn in place (a bar when the input size
 * is known, rows, rows/s, ETA); anything else (a log file, CI) gets a plain line every few seconds.
 */
export interface ProgressReporter {
  update(p: ImportProgress): void;
  /** Clears the redrawn line, so what follows starts on a clean line. */
  done(): void;
}

const grouped = (n: number) => Math.round(n).toLocaleString('en-US');

function duration(seconds: number): string {
  if (!Number.isFinite(seconds)) return '?';
  const s = Math.max(0, Math.round(seconds));
  if (s < 60) return `${s}s`;
  if (s < 3600) return `${Math.floor(s / 60)}m${String(s % 60).padStart(2, '0')}s`;
  return `${Math.floor(s / 3600)}h${String(Math.floor((s % 3600) / 60)).padStart(2, '0')}m`;
}

function parts(p: ImportProgress): { share: number | undefined; text: string } {
  const seconds = p.elapsedMs / 1000;
  const rate = seconds > 0 ? p.rows / seconds : 0;
  const share = p.totalBytes ? Math.min(1, p.bytes / p.totalBytes) : undefined;
  const eta = share !== undefined && share > 0 ? duration((seconds / share) * (1 - share)) : undefined;
  const rejected = p.counts.rejected ? ` | ${grouped(p.counts.rejected)} rejected` : '';
  const text = `${grouped(p.rows)} rows | ${grouped(rate)} rows/s${rejected}${eta !== undefined ? ` | ETA ${eta}` : ''}`;
  return { share, text };
}

export function progressReporter(label: string, out: NodeJS.WriteStream = process.stderr, intervalMs?: number): ProgressReporter {
  const tty = Boolean(out.isTTY);
  const every = intervalMs ?? (tty ? 100 : 5_000);
  let last = tty ? 0 : Date.now(); // a log gets its first line after one interval, not at once
  let drawn = false;
  return {
    update(p) {
      const now = Date.now();
      if (now - last < every) return;
      last = now;
      const { share, text } = parts(p);
      if (!tty) {
        out.write(`${label}: ${text}${share !== undefined ? ` | ${(share * 100).toFixed(1)}% of input` : ''}\n`);
        return;
      }
      const width = 24;
      const bar = share !== undefined ? `[${'#'.repeat(Math.round(share * width)).padEnd(width, '-')}] ${(share * 100).toFixed(0).padStart(3)}% | ` : '';
      out.write(`\r\x1b[K${label} ${bar}${text}`.slice(0, (out.columns || 120) + 4));
      drawn = true;
    },
    done() {
      if (drawn) out.write('\r\x1b[K');
      drawn = false;
    },
  };
}
