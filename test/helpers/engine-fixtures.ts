/**
 * Shared test fixtures: locating the shared sample media (read in place, never copied) and turning
 * the AnimatedDrawings char1 annotation into a CharacterAnalysis, so rig and render tests do not
 * depend on the pose detector; a per-file temporary work directory.
 */
import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { after, before } from 'node:test';
import { fileURLToPath } from 'node:url';
import sharp from 'sharp';
import { defaultCharacterKeypoints, defaultCharacterSvg } from '../../src/engine/builtins/default-character.js';
import { buildRig, type Rig } from '../../src/engine/rig/build-rig.js';
import type { CharacterAnalysis, Keypoint } from '../../src/engine/types.js';

const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
export const MEDIA_DIR = resolve(repoRoot, '..', 'shared', 'media');
export const mediaPath = (rel: string): string => join(MEDIA_DIR, rel);
/** Reason to skip, or false when the file is there. */
export const missingMedia = (rel: string): string | false =>
  existsSync(mediaPath(rel)) ? false : `sample media ${rel} not found in ${MEDIA_DIR}; skipping`;

/** Reads the `skeleton:` list of an AnimatedDrawings char_cfg.yaml (name + loc). */
export function readAnimatedDrawingsJoints(file: string): Map<string, [number, number]> {
  const out = new Map<string, [number, number]>();
  const lines = readFileSync(file, 'utf8').split('\n');
  for (let i = 0; i < lines.length; i++) {
    if (lines[i].trim() !== '- loc:') continue;
    const x = Number(lines[i + 1].trim().slice(2));
    const y = Number(lines[i + 2].trim().slice(2));
    const name = lines[i + 3].trim().replace(/^name:\s*/, '');
    out.set(name, [x, y]);
  }
  return out;
}

/** COCO-17 keypoints from an AnimatedDrawings 16-joint annotation (face placed around `neck`). */
export function analysisFromAnimatedDrawings(cfgFile: string, width: number, height: number): CharacterAnalysis {
  const j = readAnimatedDrawingsJoints(cfgFile);
  const get = (n: string): [number, number] => {
    const p = j.get(n);
    if (!p) throw new Error(`joint ${n} missing in ${cfgFile}`);
    return p;
  };
  const kp = ([x, y]: [number, number], dx = 0, dy = 0): Keypoint => ({ x: x + dx, y: y + dy, score: 1 });
  const head = get('neck');
  const body: Keypoint[] = [
    kp(head),
    kp(head, 15, -10),
    kp(head, -15, -10),
    kp(head, 30, 0),
    kp(head, -30, 0),
    kp(get('left_shoulder')),
    kp(get('right_shoulder')),
    kp(get('left_elbow')),
    kp(get('right_elbow')),
    kp(get('left_hand')),
    kp(get('right_hand')),
    kp(get('left_hip')),
    kp(get('right_hip')),
    kp(get('left_knee')),
    kp(get('right_knee')),
    kp(get('left_foot')),
    kp(get('right_foot')),
  ];
  return {
    version: 1,
    width,
    height,
    maskMethod: 'alpha',
    body,
    poseMethod: 'heuristic',
    crop: { x: 0, y: 0, width, height },
  };
}

/** A temporary directory for one test file: made before its tests run, removed after them; call to read it. */
export function workDir(prefix: string): () => string {
  let dir = '';
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), prefix));
  });
  after(async () => {
    await rm(dir, { recursive: true, force: true });
  });
  return () => dir;
}

/**
 * A 200 x 200 mask: a disc body (radius 50 about the centre) with thin arms (9 px) out to the sides at
 * y 71-79, their shoulders well inside the disc, and thin legs (9 px) down from its bottom.
 */
export function discBodyFigure(): { w: number; h: number; data: Uint8Array } {
  const w = 200,
    h = 200;
  const data = new Uint8Array(w * h);
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < w; x++) {
      const body = Math.hypot(x - 100, y - 100) <= 50;
      const arm = y >= 71 && y <= 79 && ((x >= 10 && x <= 60) || (x >= 140 && x <= 190));
      const leg = y >= 140 && y <= 195 && ((x >= 76 && x <= 84) || (x >= 116 && x <= 124));
      if (body || arm || leg) data[y * w + x] = 1;
    }
  }
  return { w, h, data };
}

/**
 * A 640 x 600 children's drawing (grey fill, thick purple outline, off-white paper) of a stout figure
 * whose arms are thick sleeves (`sleeve` px across) held out level: each sleeve's upper edge leaves the
 * round body at (320 ∓ `seam.top`, 190) and its underside slants into the body, joining it at
 * (320 ∓ `seam.under`, `seam.underY`): an armpit that lies below the body's middle, with no step where
 * the arm meets the body.
 */
export function thickSleeveDrawing(sleeve = 70): { svg: string; seam: { top: number; under: number; underY: number } } {
  const cx = 320,
    body = { cy: 260, rx: 95, ry: 100 };
  const topY = 190,
    reach = 190;
  const seam = { top: 60, under: 80, underY: topY + sleeve + 40 };
  const parts = [
    `<circle cx="${cx}" cy="105" r="58"/>`,
    `<ellipse cx="${cx}" cy="${body.cy}" rx="${body.rx}" ry="${body.ry}"/>`,
    `<ellipse cx="${cx - 48}" cy="${body.cy + body.ry + 50}" rx="27" ry="70"/>`,
    `<ellipse cx="${cx + 48}" cy="${body.cy + body.ry + 50}" rx="27" ry="70"/>`,
  ];
  for (const s of [-1, 1]) {
    const end = cx + s * reach;
    parts.push(
      `<polygon points="${cx + s * seam.top},${topY} ${end},${topY + 25} ${end},${topY + 25 + sleeve} ${cx + s * seam.under},${seam.underY}"/>`,
      `<circle cx="${end + s * 14}" cy="${topY + 25 + sleeve / 2}" r="${sleeve / 2 + 8}"/>`,
    );
  }
  const shapes = parts.join('');
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="640" height="600"><rect width="640" height="600" fill="#fbfaf6"/><g fill="#3a2a8a" stroke="#3a2a8a" stroke-width="12" stroke-linejoin="round">${shapes}</g><g fill="#c9c9c4">${shapes}</g><circle cx="300" cy="95" r="5" fill="#3a2a8a"/><circle cx="340" cy="95" r="5" fill="#3a2a8a"/></svg>`;
  return { svg, seam };
}

/** The built-in default character rigged from its own picture and keypoints. */
export async function defaultCharacterRig(): Promise<Rig> {
  const { data, info } = await sharp(Buffer.from(defaultCharacterSvg())).ensureAlpha().raw().toBuffer({ resolveWithObject: true });
  const analysis: CharacterAnalysis = {
    version: 1,
    width: info.width,
    height: info.height,
    maskMethod: 'alpha',
    body: defaultCharacterKeypoints(),
    poseMethod: 'model',
    crop: { x: 0, y: 0, width: info.width, height: info.height },
  };
  return buildRig(analysis, new Uint8Array(data.buffer, data.byteOffset, data.length), info.width, info.height);
}

/** Limb joints (of 12) of `a` within a tenth of the reference's figure height of the reference's (same frame). */
export function jointsKept(a: CharacterAnalysis, ref: CharacterAnalysis): number {
  let near = 0;
  for (let j = 5; j <= 16; j++) {
    if (Math.hypot(a.body[j].x - ref.body[j].x, a.body[j].y - ref.body[j].y) <= 0.1 * ref.crop.height) near++;
  }
  return near;
}
