// Text-to-speech in its own process. eSpeak NG (the `espeak-ng` npm package, a WebAssembly build)
// is GPL-3.0-or-later, so Marionette (Apache-2.0) never links it: this script runs as a separate
// program, reading its arguments as JSON from argv and writing one WAV file (see docs/generation.md).
import { writeFile } from 'node:fs/promises';
import ESpeakNg from 'espeak-ng';

const { text, outFile, voice, speed, pitch } = JSON.parse(process.argv[2]);
const espeak = await ESpeakNg({
  arguments: ['-w', 'speech.wav', '-v', String(voice), '-s', String(speed), '-p', String(pitch), '--', String(text)],
});
await writeFile(outFile, espeak.FS.readFile('speech.wav'));
