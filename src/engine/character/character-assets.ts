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
import type { TextureSource } from './texture.js';

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
  return rigFromPixels(analysis, { rgba: data, width: info.width, height: info.height });
}

/** Builds the rig from a texture's RGBA pixels; rig refusals become INVALID_CHARACTER. */
function rigFromPixels(analysis: CharacterAnalysis, texture: TextureSource): Rig {
  const { rgba, width, height } = texture;
  try {
    return buildRig(analysis, new Uint8Array(rgba.buffer, rgba.byteOffset, rgba.length), width, height);
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
  // The built-in character's skeleton is known exactly (it is drawn around it).
  const builtIn = await isDefaultCharacterImage(imageFile);
  const final = (a: CharacterAnalysis): CharacterAnalysis =>
    builtIn ? { ...a, body: defaultCharacterKeypoints(), poseMethod: 'model' } : a;
  // The rig is built from the finished texture while its PNG is encoded and written.
  let rig: Rig | null = null;
  const res = await analyzeCharacterImage({
    tools,
    imageFile,
    outDir,
    thumbnail,
    signal,
    withTexture: (a, texture) => {
      onProgress?.(70);
      rig = rigFromPixels(final(a), texture);
    },
  });
  const analysis = final(res.analysis);
  rig ??= await rigFromTexture(analysis, join(outDir, res.textureFile));
  const file: CharacterFile = { version: 1, analysis, rig };
  await writeFile(join(outDir, CHARACTER_FILE), JSON.stringify(file));
  return { dir: outDir, analysis, characterFile: CHARACTER_FILE, textureFile: res.textureFile, thumbnailFile: res.thumbnailFile };
}
