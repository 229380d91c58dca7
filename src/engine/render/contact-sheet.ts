/**
 * Contact sheet of a render: frames sampled evenly over the motion, each with the character's posed
 * skeleton (green) and the performer's (red, thin) drawn over, the performer's lowest ankle as a
 * dashed line, and a caption with the frame index and the figure's piece count (figure-metrics.ts).
 * Made in process with the renderer's own frame painter (no encoding), for reviewers: `npm run
 * engine -- sheet`.
 */
import sharp from 'sharp';
import type { Rig } from '../rig/build-rig.js';
import { BONES, type Point } from '../rig/skeleton.js';
import type { BackgroundSpec, MotionAssets } from '../types.js';
import { figurePieces, lowestRow } from './figure-metrics.js';
import { createFrameRenderer } from './render-video.js';

export interface SheetOptions {
  rig: Rig;
  textureFile: string;
  motion: MotionAssets;
  background: BackgroundSpec;
  outFile: string;
  /** Frames on the sheet (default 12), columns (default 6), tile height in px (default 320). */
  frames?: number;
  columns?: number;
  tileHeight?: number;
  /** Caption prefix (e.g. character and motion names). */
  title?: string;
}

export interface SheetFrame {
  index: number;
  pieces: number;
  lowest: number;
}

/** COCO pairs of the performer's skeleton drawn in red. */
const COCO_LINES: Array<[number, number]> = [
  [5, 6],
  [5, 11],
  [6, 12],
  [11, 12],
  [5, 7],
  [7, 9],
  [6, 8],
  [8, 10],
  [11, 13],
  [13, 15],
  [12, 14],
  [14, 16],
];

const esc = (s: string): string => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

export async function renderContactSheet(o: SheetOptions): Promise<{ file: string; frames: SheetFrame[]; width: number; height: number }> {
  const fr = await createFrameRenderer({ rig: o.rig, textureFile: o.textureFile, motion: o.motion, background: o.background });
  const { width: W, height: H, frameCount } = fr;
  const n = Math.max(1, Math.min(frameCount, o.frames ?? 12));
  const cols = Math.max(1, Math.min(n, o.columns ?? 6));
  const tileH = o.tileHeight ?? 320;
  const tileW = Math.max(1, Math.round((W * tileH) / H));
  const picks = new Set(Array.from({ length: n }, (_, k) => Math.round(((frameCount - 1) * (k + 0.5)) / n)));
  const k = W / o.motion.track.width;
  const frame = new Uint8Array(W * H * 4);
  const joints: Point[] = [];
  const tiles: Array<{ input: Buffer; left: number; top: number }> = [];
  const frames: SheetFrame[] = [];
  // Frames are painted in order: the retargeter carries unreliable bones over from the previous frame.
  for (let i = 0; i < frameCount; i++) {
    fr.draw(i, frame, joints);
    if (!picks.has(i)) continue;
    const { pieces, label, largest } = figurePieces(frame, W, H, { stride: 4, offset: 3, labels: true });
    const lowest = lowestRow(frame, W, H, { stride: 4, offset: 3 });
    frames.push({ index: i, pieces, lowest });
    const body = o.motion.track.frames[i].body;
    const sw = Math.max(1, W / 400);
    const lines: string[] = [];
    for (const [a, b] of COCO_LINES) {
      if (body[a].score < 0.2 || body[b].score < 0.2) continue;
      lines.push(
        `<line x1="${body[a].x * k}" y1="${body[a].y * k}" x2="${body[b].x * k}" y2="${body[b].y * k}" stroke="#ff3030" stroke-width="${sw}" opacity="0.8"/>`,
      );
    }
    const ankles = [15, 16].filter((j) => body[j].score >= 0.3).map((j) => body[j].y * k);
    if (ankles.length)
      lines.push(
        `<line x1="0" y1="${Math.max(...ankles)}" x2="${W}" y2="${Math.max(...ankles)}" stroke="#ff3030" stroke-width="${sw}" stroke-dasharray="${6 * sw}"/>`,
      );
    if (lowest >= 0)
      lines.push(`<line x1="0" y1="${lowest + 0.5}" x2="${W}" y2="${lowest + 0.5}" stroke="#30a0ff" stroke-width="${sw}" opacity="0.8"/>`);
    for (const b of BONES) {
      const p = joints[b.from],
        q = joints[b.to];
      lines.push(`<line x1="${p.x}" y1="${p.y}" x2="${q.x}" y2="${q.y}" stroke="#30ff60" stroke-width="${2 * sw}" opacity="0.9"/>`);
    }
    for (const p of joints) lines.push(`<circle cx="${p.x}" cy="${p.y}" r="${3 * sw}" fill="#30ff60"/>`);
    const fs = Math.round(H / 24);
    const caption = `#${i}  ${pieces} piece${pieces === 1 ? '' : 's'}`;
    lines.push(
      `<rect x="0" y="0" width="${W}" height="${fs * 1.5}" fill="#000" opacity="0.55"/><text x="${fs * 0.4}" y="${fs * 1.1}" font-family="sans-serif" font-size="${fs}" fill="${pieces > 1 ? '#ff5050' : '#ffffff'}">${esc(caption)}</text>`,
    );
    const svg = Buffer.from(`<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}">${lines.join('')}</svg>`);
    const rgba = Buffer.from(frame);
    // Only a transparent render shows its coverage; the others are opaque frames.
    if (o.background.mode !== 'transparent') for (let p = 3; p < rgba.length; p += 4) rgba[p] = 255;
    // Pieces apart from the largest are tinted magenta.
    if (pieces > 1 && label)
      for (let p = 0; p < label.length; p++)
        if (label[p] > 0 && label[p] !== largest) {
          rgba[p * 4] = 255;
          rgba[p * 4 + 1] = 0;
          rgba[p * 4 + 2] = 255;
          rgba[p * 4 + 3] = 255;
        }
    const tile = await sharp(rgba, { raw: { width: W, height: H, channels: 4 } })
      .flatten({ background: { r: 128, g: 128, b: 128 } })
      .composite([{ input: svg }])
      .png()
      .toBuffer();
    const small = await sharp(tile).resize(tileW, tileH).png().toBuffer();
    const t = tiles.length;
    tiles.push({ input: small, left: (t % cols) * tileW, top: Math.floor(t / cols) * tileH + (o.title ? 28 : 0) });
  }
  const rows = Math.ceil(tiles.length / cols);
  const width = cols * tileW,
    height = rows * tileH + (o.title ? 28 : 0);
  const layers = [...tiles];
  if (o.title) {
    const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="28"><text x="6" y="20" font-family="sans-serif" font-size="18" fill="#fff">${esc(o.title)}</text></svg>`;
    layers.push({ input: Buffer.from(svg), left: 0, top: 0 });
  }
  await sharp({ create: { width, height, channels: 3, background: { r: 24, g: 24, b: 24 } } })
    .composite(layers)
    .png()
    .toFile(o.outFile);
  return { file: o.outFile, frames, width, height };
}
