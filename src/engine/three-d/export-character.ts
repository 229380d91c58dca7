/**
 * The 3D half of a Character: its analysed cut-out → a skinned Gaussian-splat body written as the
 * vsplat file (3DGS binary PLY, see splat-ply.ts), and, when asked, a thumbnail rendered from the
 * splats (not the input picture). No HTTP, no SQL.
 */
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import sharp from 'sharp';
import { EngineError, type CharacterAnalysis } from '../types.js';
import { buildSplats, type SplatCloud, type SplatOptions } from './splat-build.js';
import { encodeSplatPly } from './splat-ply.js';
import { renderSplats } from './splat-render.js';

export const VSPLAT_FILE = 'character.vsplat';
export const SPLAT_THUMBNAIL_FILE = 'thumbnail.png';
const THUMBNAIL_SIDE = 512;

export interface VsplatInput extends SplatOptions {
  /** Directory holding the 2D part's `character.json` and `texture.png`. */
  characterDir: string;
  outDir: string;
  thumbnail: boolean;
}

export async function writeVsplat(input: VsplatInput): Promise<{ files: string[]; count: number }> {
  let analysis: CharacterAnalysis;
  try {
    analysis = (JSON.parse(await readFile(path.join(input.characterDir, 'character.json'), 'utf8')) as { analysis: CharacterAnalysis })
      .analysis;
  } catch (err) {
    throw new EngineError('INVALID_CHARACTER', 'The character has no readable analysis to build a splat from', { cause: String(err) });
  }
  const { data, info } = await sharp(path.join(input.characterDir, 'texture.png'))
    .ensureAlpha()
    .raw()
    .toBuffer({ resolveWithObject: true });
  let cloud: SplatCloud;
  try {
    cloud = buildSplats({ data, width: info.width, height: info.height }, analysis, input);
  } catch (err) {
    throw new EngineError('INVALID_CHARACTER', (err as Error).message);
  }
  await writeFile(path.join(input.outDir, VSPLAT_FILE), encodeSplatPly(cloud, input.jointSet));
  const files = [VSPLAT_FILE];
  if (input.thumbnail) {
    await writeFile(path.join(input.outDir, SPLAT_THUMBNAIL_FILE), await splatThumbnail(cloud, info.width, info.height));
    files.push(SPLAT_THUMBNAIL_FILE);
  }
  return { files, count: cloud.count };
}

/** A square PNG of the splat seen from the front, the figure fitted with a margin, on transparency. */
export async function splatThumbnail(cloud: SplatCloud, texW: number, texH: number, yawDeg = 0): Promise<Buffer> {
  const side = THUMBNAIL_SIDE;
  const fit = (0.9 * side) / Math.max(texW, texH);
  const scale = fit / cloud.metresPerPixel;
  const cam = { width: side, height: side, scale, cx: side / 2, cy: side / 2 + (texH * fit) / 2, yawDeg };
  const rgba = renderSplats(cloud, cam);
  return sharp(Buffer.from(rgba), { raw: { width: side, height: side, channels: 4 } })
    .png()
    .toBuffer();
}
