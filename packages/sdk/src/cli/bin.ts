/** Process entry of `marionette` (bin/marionette.js loads this). */
import { run } from './main.js';
import { EXIT } from './exit-codes.js';

process.once('SIGINT', () => {
  process.stderr.write('\ninterrupted\n');
  process.exit(EXIT.INTERRUPTED);
});
const argv = process.argv.slice(2);
const code = await run(argv, { env: process.env, stdout: process.stdout, stderr: process.stderr, stdin: process.stdin });
const serving = code === EXIT.OK && argv.includes('mcp') && !argv.includes('--help') && !argv.includes('-h');
// The MCP server keeps running on stdin; every other command exits once its output is flushed.
if (!serving) process.stdout.write('', () => process.exit(code));
