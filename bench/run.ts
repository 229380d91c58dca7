/**
 * `npm run bench -- <name> [args]`: runs bench/<name>.ts (its exported `run(args)`).
 * Benchmarks hold the speed and memory targets; tests never time anything.
 */
import { readdirSync } from 'node:fs';

const [name, ...args] = process.argv.slice(2);
const available = readdirSync(import.meta.dirname)
  .filter((f) => f.endsWith('.ts') && f !== 'run.ts' && !f.startsWith('_'))
  .map((f) => f.replace(/\.ts$/, ''));
if (!name || !available.includes(name)) {
  process.stderr.write(`usage: npm run bench -- <${available.join('|')}> [args]\n`);
  process.exit(2);
}
const mod = (await import(`./${name}.js`)) as { run(args: string[]): Promise<void> };
await mod.run(args);
