/**
 * Progress display: bars (cli-progress) when stderr is a terminal, otherwise one plain line per
 * meaningful change (stage, every 25%, the end), so logs stay readable. Nothing in --json mode.
 */
import cliProgress from 'cli-progress';

export interface ProgressTask {
  update(value: number, info?: string): void;
  done(info?: string): void;
}

export interface Progress {
  task(label: string, total: number, unit: 'bytes' | 'percent'): ProgressTask;
  stop(): void;
}

function fmtBytes(n: number): string {
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} KB`;
  return `${(n / 1024 / 1024).toFixed(1)} MB`;
}

export function createProgress(mode: 'tty' | 'lines' | 'off', out: NodeJS.WritableStream = process.stderr): Progress {
  if (mode === 'off') return { task: () => ({ update() {}, done() {} }), stop() {} };
  if (mode === 'tty') {
    const multi = new cliProgress.MultiBar(
      {
        stream: out as NodeJS.WriteStream,
        format: '{label} |{bar}| {percentage}% {info}',
        barCompleteChar: '\u2588',
        barIncompleteChar: '\u2591',
        hideCursor: true,
        clearOnComplete: false,
        stopOnComplete: false,
        forceRedraw: true,
        noTTYOutput: false,
      },
      cliProgress.Presets.shades_classic,
    );
    return {
      task(label, total, unit) {
        const bar = multi.create(Math.max(total, 1), 0, { label: label.padEnd(16), info: '' });
        const info = (v: number, extra?: string) =>
          (unit === 'bytes' ? `${fmtBytes(v)}/${fmtBytes(total)}` : '') + (extra ? ` ${extra}` : '');
        return {
          update(v, extra) {
            bar.update(Math.min(v, total), { info: info(v, extra) });
          },
          done(extra) {
            bar.update(total, { info: info(total, extra) });
          },
        };
      },
      stop: () => multi.stop(),
    };
  }
  return {
    task(label, total, unit) {
      let lastQuarter = -1;
      let lastInfo = '';
      let finished = false;
      const line = (v: number, extra?: string) => {
        const pct = total > 0 ? Math.floor((100 * Math.min(v, total)) / total) : 100;
        out.write(
          `${label}: ${pct}%${unit === 'bytes' ? ` (${fmtBytes(Math.min(v, total))} of ${fmtBytes(total)})` : ''}${extra ? ` ${extra}` : ''}\n`,
        );
      };
      return {
        update(v, extra) {
          const q = total > 0 ? Math.floor((4 * Math.min(v, total)) / total) : 4;
          if (finished || (q === lastQuarter && (extra ?? '') === lastInfo) || q >= 4) return;
          lastQuarter = q;
          lastInfo = extra ?? '';
          line(v, extra);
        },
        done(extra) {
          if (finished) return;
          finished = true;
          line(total, extra);
        },
      };
    },
    stop() {},
  };
}
