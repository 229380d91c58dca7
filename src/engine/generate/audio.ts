/**
 * Native audio for generated clips: music synthesised to the plan's mood and tempo (pad chords,
 * bass on the beat, a seeded melody, percussion for the lively moods), ambience for the setting
 * (surf, wind, crickets, city hum, room tone, crowd murmur) and, on top, speech for quoted dialogue,
 * with the music ducked under it. Everything is computed here in plain arithmetic, so the same plan
 * gives the same samples; the result is a 16-bit stereo WAV that the encoder turns into AAC.
 */
import { writeFile } from 'node:fs/promises';
import type { Mood, ScenePlan, Setting } from './plan.js';
import { mulberry32 } from './random.js';

export const SAMPLE_RATE = 44100;

/** A mono speech clip to place at `atS` seconds (samples at SAMPLE_RATE, -1..1). */
export interface SpeechClip {
  atS: number;
  samples: Float32Array;
}

const MAJOR = [0, 2, 4, 5, 7, 9, 11];
const MINOR = [0, 2, 3, 5, 7, 8, 10];
/** Chord roots as scale degrees (4 bars, repeated). */
const PROGRESSIONS: Record<Mood, number[][]> = {
  cheerful: [
    [0, 4, 5, 3],
    [0, 5, 3, 4],
    [3, 4, 0, 0],
  ],
  energetic: [
    [0, 5, 3, 4],
    [5, 3, 0, 4],
    [0, 0, 3, 4],
  ],
  calm: [
    [0, 3, 0, 4],
    [0, 5, 3, 0],
    [3, 0, 4, 0],
  ],
  melancholic: [
    [0, 5, 2, 6],
    [0, 3, 4, 0],
    [5, 3, 0, 4],
  ],
  tense: [
    [0, 1, 0, 5],
    [0, 6, 5, 1],
    [0, 0, 1, 1],
  ],
};

const midiHz = (m: number): number => 440 * Math.pow(2, (m - 69) / 12);

function envelope(t: number, attack: number, decay: number): number {
  if (t < 0) return 0;
  return t < attack ? t / attack : Math.exp(-(t - attack) / decay);
}

/** Music for the plan, mono, `n` samples. */
function music(plan: ScenePlan, n: number): Float32Array {
  const rnd = mulberry32(plan.seed ^ 0xa0d10);
  const out = new Float32Array(n);
  const minor = plan.mood === 'melancholic' || plan.mood === 'tense' || plan.setting === 'night';
  const scale = minor ? MINOR : MAJOR;
  const key = 48 + Math.floor(rnd() * 8);
  const prog = PROGRESSIONS[plan.mood][Math.floor(rnd() * PROGRESSIONS[plan.mood].length)];
  const beat = 60 / plan.tempo;
  const bar = beat * 4;
  const degree = (d: number, octave = 0): number => key + 12 * (octave + Math.floor(d / 7)) + scale[((d % 7) + 7) % 7];
  const lively = plan.mood === 'cheerful' || plan.mood === 'energetic' || plan.mood === 'tense';
  // A melody of eighth notes drawn from the chord tones and their neighbours.
  const melody: number[] = [];
  let step = 4;
  for (let i = 0; i < 64; i++) {
    step += Math.floor(rnd() * 5) - 2;
    step = Math.max(0, Math.min(11, step));
    melody.push(rnd() < 0.2 ? -1 : step);
  }
  for (let i = 0; i < n; i++) {
    const t = i / SAMPLE_RATE;
    const b = Math.floor(t / bar);
    const root = prog[b % prog.length];
    const tb = t - b * bar;
    let s = 0;
    // Pad: the triad, soft saw-ish (three harmonics), swelling with each bar.
    const pad = 0.5 + 0.5 * Math.min(1, tb / 0.4);
    for (const d of [root, root + 2, root + 4]) {
      const f = midiHz(degree(d, 1));
      s += pad * 0.045 * (Math.sin(2 * Math.PI * f * t) + 0.3 * Math.sin(4 * Math.PI * f * t) + 0.12 * Math.sin(6 * Math.PI * f * t));
    }
    // Bass on every beat.
    const tbeat = t % beat;
    const fb = midiHz(degree(root, -1));
    s += 0.16 * envelope(tbeat, 0.01, beat * 0.6) * Math.sin(2 * Math.PI * fb * t);
    // Melody, eighth notes, plucked.
    const eighth = beat / 2;
    const ni = Math.floor(t / eighth);
    const note = melody[ni % melody.length];
    if (note >= 0) {
      const te = t - ni * eighth;
      const f = midiHz(degree(note, 2));
      s += 0.07 * envelope(te, 0.005, eighth * 0.7) * (Math.sin(2 * Math.PI * f * t) + 0.25 * Math.sin(4 * Math.PI * f * t));
    }
    if (lively) {
      // Kick on beats 1 and 3, a hat on the off-beats (a decaying pitch sweep and a hiss).
      const beatNo = Math.floor(t / beat);
      if (beatNo % 2 === 0) {
        const f = 50 + 90 * Math.exp(-tbeat / 0.03);
        s += 0.28 * envelope(tbeat, 0.002, 0.12) * Math.sin(2 * Math.PI * f * tbeat);
      }
      const toff = (t + beat / 2) % beat;
      s += 0.035 * envelope(toff, 0.001, 0.03) * (rnd() * 2 - 1);
    }
    out[i] = s;
  }
  return out;
}

/** One-pole low-pass filter in place. */
function lowpass(x: Float32Array, hz: number): void {
  const a = 1 - Math.exp((-2 * Math.PI * hz) / SAMPLE_RATE);
  let y = 0;
  for (let i = 0; i < x.length; i++) {
    y += a * (x[i] - y);
    x[i] = y;
  }
}

const AMBIENCE_LEVEL: Record<Setting, number> = {
  studio: 0.02,
  sky: 0.05,
  room: 0.02,
  beach: 0.12,
  night: 0.05,
  forest: 0.05,
  city: 0.07,
  snow: 0.04,
  stage: 0.04,
};

/** Ambience of the setting, mono, `n` samples. */
export function ambience(setting: Setting, seed: number, n: number): Float32Array {
  const rnd = mulberry32(seed ^ 0xa3b1);
  const noise = new Float32Array(n);
  for (let i = 0; i < n; i++) noise[i] = rnd() * 2 - 1;
  const cutoff = setting === 'beach' ? 900 : setting === 'city' ? 400 : setting === 'room' || setting === 'studio' ? 250 : 600;
  lowpass(noise, cutoff);
  lowpass(noise, cutoff);
  const level = AMBIENCE_LEVEL[setting] * 6;
  const phase = rnd() * 6.28;
  for (let i = 0; i < n; i++) {
    const t = i / SAMPLE_RATE;
    // Surf swells every ~6 s; wind gusts slower; the rest is a steady bed.
    const swell =
      setting === 'beach'
        ? 0.35 + 0.65 * Math.pow(Math.max(0, Math.sin((2 * Math.PI * t) / 6 + phase)), 2)
        : setting === 'sky' || setting === 'snow'
          ? 0.5 + 0.5 * Math.sin((2 * Math.PI * t) / 9 + phase)
          : 1;
    let s = noise[i] * level * swell;
    if (setting === 'night' || setting === 'forest') {
      // Crickets (night) or birds (forest): short high chirps in bursts.
      const rate = setting === 'night' ? 3.1 : 0.7;
      const tc = (t * rate + phase) % 1;
      const f = setting === 'night' ? 4200 : 2600 + 900 * Math.sin(tc * 40);
      const burst = tc < 0.15 ? Math.sin((Math.PI * tc) / 0.15) * (0.5 + 0.5 * Math.sin(2 * Math.PI * 30 * t)) : 0;
      s += 0.02 * burst * Math.sin(2 * Math.PI * f * t);
    }
    noise[i] = s;
  }
  return noise;
}

/**
 * Mixes music, ambience and speech into `durationS` of stereo 16-bit PCM. The music ducks by 10 dB
 * while someone speaks; the clip fades in and out over 50 ms so it never starts or ends on a click.
 */
export function mixSoundtrack(plan: ScenePlan, speech: SpeechClip[], durationS: number): Buffer {
  const n = Math.max(1, Math.round(durationS * SAMPLE_RATE));
  const m = music(plan, n);
  const a = ambience(plan.setting, plan.seed, n);
  const voice = new Float32Array(n);
  for (const clip of speech) {
    const start = Math.round(clip.atS * SAMPLE_RATE);
    for (let i = 0; i < clip.samples.length && start + i < n; i++) voice[start + i] += clip.samples[i];
  }
  // Ducking gain follows the speech envelope with a 30 ms attack and 300 ms release.
  const duck = new Float32Array(n);
  let env = 0;
  const att = 1 - Math.exp(-1 / (0.03 * SAMPLE_RATE)),
    rel = 1 - Math.exp(-1 / (0.3 * SAMPLE_RATE));
  for (let i = 0; i < n; i++) {
    const v = Math.abs(voice[i]) > 0.02 ? 1 : 0;
    env += (v - env) * (v > env ? att : rel);
    duck[i] = 1 - 0.68 * env;
  }
  const fade = Math.round(0.05 * SAMPLE_RATE);
  const pcm = Buffer.alloc(n * 4);
  for (let i = 0; i < n; i++) {
    const g = Math.min(1, i / fade, (n - 1 - i) / fade);
    const bed = m[i] * duck[i];
    // A slight stereo spread: music a touch left-right, ambience wide, voice centred.
    const l = (bed * 0.95 + a[i] * 0.9 + voice[i] * 0.9) * g;
    const r = (bed * 0.85 + a[(i + 331) % n] * 0.9 + voice[i] * 0.9) * g;
    pcm.writeInt16LE(Math.round(Math.max(-1, Math.min(1, Math.tanh(l))) * 32000), i * 4);
    pcm.writeInt16LE(Math.round(Math.max(-1, Math.min(1, Math.tanh(r))) * 32000), i * 4 + 2);
  }
  return pcm;
}

/** Writes interleaved 16-bit PCM as a WAV file. */
export async function writeWav(file: string, pcm: Buffer, channels: number, rate = SAMPLE_RATE): Promise<void> {
  const h = Buffer.alloc(44);
  h.write('RIFF', 0);
  h.writeUInt32LE(36 + pcm.length, 4);
  h.write('WAVE', 8);
  h.write('fmt ', 12);
  h.writeUInt32LE(16, 16);
  h.writeUInt16LE(1, 20);
  h.writeUInt16LE(channels, 22);
  h.writeUInt32LE(rate, 24);
  h.writeUInt32LE(rate * channels * 2, 28);
  h.writeUInt16LE(channels * 2, 32);
  h.writeUInt16LE(16, 34);
  h.write('data', 36);
  h.writeUInt32LE(pcm.length, 40);
  await writeFile(file, Buffer.concat([h, pcm]));
}

/** Reads a 16-bit PCM WAV (mono or stereo, any rate) as mono samples resampled to SAMPLE_RATE. */
export function decodeWavMono(buf: Buffer): Float32Array {
  if (buf.toString('ascii', 0, 4) !== 'RIFF' || buf.toString('ascii', 8, 12) !== 'WAVE') throw new Error('not a WAV file');
  let off = 12,
    channels = 1,
    rate = SAMPLE_RATE,
    bits = 16;
  let data: Buffer | null = null;
  while (off + 8 <= buf.length) {
    const id = buf.toString('ascii', off, off + 4);
    let size = buf.readUInt32LE(off + 4);
    if (off + 8 + size > buf.length) size = buf.length - off - 8;
    if (id === 'fmt ') {
      channels = buf.readUInt16LE(off + 10);
      rate = buf.readUInt32LE(off + 12);
      bits = buf.readUInt16LE(off + 22);
    } else if (id === 'data') data = buf.subarray(off + 8, off + 8 + size);
    off += 8 + size + (size % 2);
  }
  if (!data || bits !== 16) throw new Error('unsupported WAV layout');
  const frames = Math.floor(data.length / (2 * channels));
  const src = new Float32Array(frames);
  for (let i = 0; i < frames; i++) {
    let s = 0;
    for (let c = 0; c < channels; c++) s += data.readInt16LE((i * channels + c) * 2);
    src[i] = s / channels / 32768;
  }
  if (rate === SAMPLE_RATE) return src;
  const n = Math.floor((frames * SAMPLE_RATE) / rate);
  const out = new Float32Array(n);
  for (let i = 0; i < n; i++) {
    const x = (i * rate) / SAMPLE_RATE;
    const a = Math.floor(x),
      f = x - a;
    out[i] = (src[a] ?? 0) * (1 - f) + (src[a + 1] ?? src[a] ?? 0) * f;
  }
  return out;
}
