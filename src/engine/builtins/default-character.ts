/**
 * The built-in default character: a friendly puppet drawn from an SVG written here, rendered with
 * sharp on a transparent 512x768 canvas. Limbs are drawn along the canonical skeleton's rest pose
 * (arms slightly away from the body, legs apart) so that the figure rigs cleanly: no limb touches
 * another, and every joint sits inside the silhouette.
 */
import { createHash } from 'node:crypto';
import { mkdir } from 'node:fs/promises';
import { dirname } from 'node:path';
import sharp from 'sharp';
import type { Keypoint } from '../types.js';
import { CANVAS, FACE_DESIGN_R, REST_POSE, puppetHead, puppetKeypoints } from './puppet-pose.js';

/** Keypoints of the default character's rest pose (what a perfect pose detector would report). */
export function defaultCharacterKeypoints(): Keypoint[] {
  return puppetKeypoints(REST_POSE);
}

export function defaultCharacterSvg(): string {
  const k = puppetKeypoints(REST_POSE);
  const P = (i: number): string => `${k[i].x},${k[i].y}`;
  const head = puppetHead(REST_POSE);
  const ink = '#3b2f4a';
  const skin = '#f4c9a3';
  const shirt = '#3f8fd8';
  const pants = '#35406b';
  const shoe = '#d9534f';
  // Upper limb in clothing, lower limb bare: short sleeves and shorts make elbows and knees visible,
  // which is where a pose model reading the animated puppet otherwise loses the bend.
  const limb = (a: number, b: number, c: number, colour: string, width: number): string =>
    `<polyline points="${P(a)} ${P(b)} ${P(c)}" fill="none" stroke="${ink}" stroke-width="${width + 6}" stroke-linecap="round" stroke-linejoin="round"/>` +
    `<line x1="${k[b].x}" y1="${k[b].y}" x2="${k[c].x}" y2="${k[c].y}" stroke="${skin}" stroke-width="${width - 6}" stroke-linecap="round"/>` +
    `<line x1="${k[a].x}" y1="${k[a].y}" x2="${k[b].x}" y2="${k[b].y}" stroke="${colour}" stroke-width="${width}" stroke-linecap="round"/>`;
  const [ls, rs, lh, rh] = [k[5], k[6], k[11], k[12]];
  // Torso: a rounded shirt shape from the shoulders down past the hips.
  const torso = `M ${rs.x - 6},${rs.y - 4} Q ${(ls.x + rs.x) / 2},${rs.y - 22} ${ls.x + 6},${ls.y - 4}
    L ${lh.x + 16},${lh.y + 14} Q ${(lh.x + rh.x) / 2},${lh.y + 30} ${rh.x - 16},${rh.y + 14} Z`;
  const hand = (i: number): string => `<circle cx="${k[i].x}" cy="${k[i].y + 6}" r="15" fill="${skin}" stroke="${ink}" stroke-width="4"/>`;
  const foot = (i: number, dir: number): string =>
    `<ellipse cx="${k[i].x + dir * 12}" cy="${k[i].y + 10}" rx="28" ry="14" fill="${shoe}" stroke="${ink}" stroke-width="4"/>`;
  // Face features are laid out for the design radius and scaled to the actual one.
  const f = head.r / FACE_DESIGN_R;
  const hx = (d: number): number => head.x + d * f,
    hy = (d: number): number => head.y + d * f;
  const eye = (dx: number): string =>
    `<ellipse cx="${hx(dx)}" cy="${hy(-4)}" rx="${7 * f}" ry="${10 * f}" fill="${ink}"/><circle cx="${hx(dx + 2)}" cy="${hy(-8)}" r="${2.5 * f}" fill="#fff"/>`;
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${CANVAS.width}" height="${CANVAS.height}" viewBox="0 0 ${CANVAS.width} ${CANVAS.height}">
  ${limb(11, 13, 15, pants, 34)}
  ${limb(12, 14, 16, pants, 34)}
  ${foot(15, 1)}${foot(16, -1)}
  <rect x="${head.x - 14}" y="${head.y + head.r - 12}" width="28" height="${rs.y - head.y - head.r + 22}" fill="${skin}" stroke="${ink}" stroke-width="4"/>
  <path d="${torso}" fill="${shirt}" stroke="${ink}" stroke-width="5" stroke-linejoin="round"/>
  <path d="M ${rh.x - 14},${rh.y + 4} L ${lh.x + 14},${lh.y + 4}" stroke="${ink}" stroke-width="4"/>
  <circle cx="${(ls.x + rs.x) / 2}" cy="${(ls.y + lh.y) / 2}" r="16" fill="#ffd166" stroke="${ink}" stroke-width="4"/>
  ${limb(5, 7, 9, shirt, 28)}${hand(9)}
  ${limb(6, 8, 10, shirt, 28)}${hand(10)}
  <circle cx="${head.x}" cy="${head.y}" r="${head.r}" fill="${skin}" stroke="${ink}" stroke-width="5"/>
  <path d="M ${hx(-50)},${hy(-20)} Q ${hx(-30)},${hy(-78)} ${hx(10)},${hy(-58)} Q ${hx(50)},${hy(-70)} ${hx(52)},${hy(-18)} Q ${hx(20)},${hy(-40)} ${hx(-50)},${hy(-20)} Z" fill="#7a4b2a" stroke="${ink}" stroke-width="4"/>
  ${eye(-18)}${eye(18)}
  <circle cx="${hx(-32)}" cy="${hy(16)}" r="${9 * f}" fill="#f28c8c" opacity="0.6"/>
  <circle cx="${hx(32)}" cy="${hy(16)}" r="${9 * f}" fill="#f28c8c" opacity="0.6"/>
  <path d="M ${hx(-18)},${hy(18)} Q ${head.x},${hy(36)} ${hx(18)},${hy(18)}" fill="none" stroke="${ink}" stroke-width="${Math.max(3, 5 * f)}" stroke-linecap="round"/>
</svg>`;
}

/** Writes the default character as a transparent PNG (512x768). */
export async function writeDefaultCharacterImage(outFile: string): Promise<void> {
  await mkdir(dirname(outFile), { recursive: true });
  await sharp(Buffer.from(defaultCharacterSvg())).png().toFile(outFile);
}

let referenceHash: Promise<string> | null = null;
const pixelHash = async (input: string | Buffer): Promise<string> => {
  const { data, info } = await sharp(input).ensureAlpha().raw().toBuffer({ resolveWithObject: true });
  return createHash('sha256').update(`${info.width}x${info.height}:`).update(data).digest('hex');
};

/**
 * Whether `file` holds exactly the default character's pixels. Its skeleton is known exactly, so the
 * engine uses that instead of asking a photo-trained pose model about a cartoon.
 */
export async function isDefaultCharacterImage(file: string): Promise<boolean> {
  const meta = await sharp(file)
    .metadata()
    .catch(() => null);
  if (!meta || meta.width !== CANVAS.width || meta.height !== CANVAS.height) return false;
  referenceHash ??= sharp(Buffer.from(defaultCharacterSvg())).png().toBuffer().then(pixelHash);
  return (await pixelHash(file)) === (await referenceHash);
}
