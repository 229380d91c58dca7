import { spawn } from 'node:child_process';
import * as netModule from 'node:net';
import { createServer, type Server, type Socket } from 'node:net';
import { resolve } from 'node:path';

export const CLI_BIN = resolve(import.meta.dirname, '../../packages/sdk/bin/marionette.js');

/**
 * A loopback TCP proxy in front of the service that the test can cut: `cut()` destroys every open
 * connection (both sides), as a dropped network would. It records each request's head.
 */
export class CuttableProxy {
  readonly heads: string[] = [];
  private readonly sockets = new Set<Socket>();
  private server!: Server;
  port = 0;
  /** Called with each chunk the service sends back; return true to cut all connections right after it. */
  cutWhen: ((chunk: string) => boolean) | null = null;

  constructor(private readonly target: { host: string; port: number }) {}

  async start(): Promise<string> {
    this.server = createServer((client) => {
      const upstream = new netModule.Socket();
      upstream.connect(this.target.port, this.target.host);
      this.sockets.add(client).add(upstream);
      let head = '';
      client.on('data', (d: Buffer) => {
        if (!head.includes('\r\n\r\n')) {
          head += d.toString('latin1');
          if (head.includes('\r\n\r\n')) this.heads.push(head.slice(0, head.indexOf('\r\n\r\n')));
        }
        upstream.write(d);
      });
      upstream.on('data', (d: Buffer) => {
        client.write(d);
        if (this.cutWhen?.(d.toString('utf8'))) {
          this.cutWhen = null;
          setImmediate(() => this.cut());
        }
      });
      const close = () => {
        client.destroy();
        upstream.destroy();
        this.sockets.delete(client);
        this.sockets.delete(upstream);
      };
      client.on('close', close).on('error', close);
      upstream.on('close', close).on('error', close);
    });
    await new Promise<void>((r) => this.server.listen(0, '127.0.0.1', r));
    this.port = (this.server.address() as { port: number }).port;
    return `http://127.0.0.1:${this.port}`;
  }

  cut(): void {
    for (const s of this.sockets) s.destroy();
    this.sockets.clear();
  }

  async close(): Promise<void> {
    this.cut();
    await new Promise<void>((r) => this.server.close(() => r()));
  }
}

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs `marionette` as a child process with pipes (no terminal). */
export function runCli(
  args: string[],
  opts: { env: Record<string, string>; cwd?: string; input?: string; timeoutMs?: number },
): Promise<CliResult> {
  return new Promise((resolveRun, reject) => {
    const child = spawn(process.execPath, [CLI_BIN, ...args], {
      cwd: opts.cwd,
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', ...opts.env },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), opts.timeoutMs ?? 300_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolveRun({ code, stdout, stderr });
    });
    child.stdin.end(opts.input ?? '');
  });
}

const shq = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;

/**
 * Runs `marionette` under a pseudo-terminal with util-linux `script` (-e: its exit code is the
 * command's). Output is everything the terminal showed, stdout and stderr together.
 */
export function runCliTty(args: string[], opts: { env: Record<string, string>; cwd?: string; timeoutMs?: number }): Promise<CliResult> {
  return new Promise((resolveRun, reject) => {
    const command = [process.execPath, CLI_BIN, ...args].map(shq).join(' ');
    const child = spawn('script', ['-q', '-e', '-c', command, '/dev/null'], {
      cwd: opts.cwd,
      env: {
        PATH: process.env.PATH ?? '',
        HOME: process.env.HOME ?? '/tmp',
        TERM: 'xterm-256color',
        COLUMNS: '120',
        LINES: '40',
        ...opts.env,
      },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), opts.timeoutMs ?? 300_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolveRun({ code, stdout, stderr });
    });
  });
}
