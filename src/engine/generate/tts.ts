/**
 * Speech for quoted dialogue, synthesised offline by eSpeak NG running as a separate process
 * (`tts-process.mjs`; GPL code is never loaded into the service's own process). The voice's pitch
 * and speed come from the seed, so a clip's speaker stays the same for the same seed.
 */
import { spawn } from 'node:child_process';
import { readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { decodeWavMono } from './audio.js';

const SCRIPT = join(import.meta.dirname, 'tts-process.mjs');
const TIMEOUT_MS = 20_000;

export interface Voice {
  voice: string;
  speed: number;
  pitch: number;
}

export function voiceFor(seed: number): Voice {
  const voices = ['en-us', 'en-us+f3', 'en-us+m3', 'en-gb', 'en-us+f2', 'en-gb+m2'];
  return { voice: voices[seed % voices.length], speed: 150 + (seed % 31), pitch: 35 + ((seed >>> 5) % 30) };
}

/** Speaks `text` into mono samples at the mixer's rate. */
export async function speak(text: string, voice: Voice, workDir: string, signal?: AbortSignal): Promise<Float32Array> {
  const outFile = join(workDir, `speech-${process.hrtime.bigint()}.wav`);
  try {
    await new Promise<void>((resolve, reject) => {
      const child = spawn(process.execPath, [SCRIPT, JSON.stringify({ text: text.slice(0, 1000), outFile, ...voice })], {
        stdio: ['ignore', 'ignore', 'pipe'],
      });
      let stderr = '';
      child.stderr.on('data', (d: Buffer) => (stderr = (stderr + d.toString()).slice(-2000)));
      const timer = setTimeout(() => child.kill('SIGKILL'), TIMEOUT_MS);
      const onAbort = () => child.kill('SIGKILL');
      signal?.addEventListener('abort', onAbort, { once: true });
      child.on('error', reject);
      child.on('close', (code) => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
        if (signal?.aborted) reject(signal.reason instanceof Error ? signal.reason : new Error('aborted'));
        else if (code === 0) resolve();
        else reject(new Error(`speech synthesis failed (exit ${code}): ${stderr.trim()}`));
      });
    });
    return decodeWavMono(await readFile(outFile));
  } finally {
    await rm(outFile, { force: true });
  }
}
