/**
 * A character picture -> its stored assets: the analysis (analyze.ts), the rig built from the texture,
 * and `character.json` holding both. Runs on the analysis thread (analysis-thread.ts), or in process
 * when that thread cannot start.
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import sharp from 'sharp';
import { defaultCharacterKeypoints, isDefaultCharacterImage } from '../builtins/default-character.js';
import type { MediaTools } from '../media/ffmpeg.js';
import { RigError, buildRig, type Rig } from '../rig/build-rig.js';
import { EngineError, type CharacterAnalysis, type CharacterAssets } from '../types.js';
import { analyzeCharacterImage } from './analyze.js';

export const CHARACTER_FILE = 'character.json';

/** `character.json`: the analysis and the rig built from it. */
export interface CharacterFile {
  version: 1;
  analysis: CharacterAnalysis;
  rig: Rig;
}

export interface CharacterAssetsInput {
  imageFile: string;
  outDir: string;
  thumbnail: boolean;
}

/** Builds the rig from a texture file; rig refusals become INVALID_CHARACTER. */
export async function rigFromTexture(analysis: CharacterAnalysis, textureFile: string): Promise<Rig> {
  const { data, info } = await sharp(textureFile).ensureAlpha().raw().toBuffer({ resolveWithObject: true });
  try {
    return buildRig(analysis, new Uint8Array(data.buffer, data.byteOffset, data.length), info.width, info.height);
  } catch (err) {
    if (err instanceof RigError)
      throw new EngineError('INVALID_CHARACTER', `The character cannot be rigged: ${err.message}`, { poseMethod: analysis.poseMethod });
    throw err;
  }
}

/** `onProgress` gets 70 once the picture is analysed (the rig is the rest). */
export async function analyzeCharacterAssets(
  tools: MediaTools,
  input: CharacterAssetsInput,
  signal?: AbortSignal,
  onProgress?: (percent: number) => void,
): Promise<CharacterAssets> {
  const { imageFile, outDir, thumbnail } = input;
  const res = await analyzeCharacterImage({ tools, imageFile, outDir, thumbnail, signal });
  onProgress?.(70);
  // The built-in character's skeleton is known exactly (it is drawn around it).
  const analysis: CharacterAnalysis = (await isDefaultCharacterImage(imageFile))
    ? { ...res.analysis, body: defaultCharacterKeypoints(), poseMethod: 'model' }
    : res.analysis;
  const rig = await rigFromTexture(analysis, join(outDir, res.textureFile));
  const file: CharacterFile = { version: 1, analysis, rig };
  await writeFile(join(outDir, CHARACTER_FILE), JSON.stringify(file));
  return { dir: outDir, analysis, characterFile: CHARACTER_FILE, textureFile: res.textureFile, thumbnailFile: res.thumbnailFile };
}
