/**
 * Clean edges (issue 10, item 4): a figure cut from a white, a black and a busy (striped) picture is
 * rendered without a band of that background around it. The synthetic figure (its dark outline
 * recoloured, so no figure colour is near white or black) is pasted at twice its size onto each
 * background, analysed by the real engine (mask, texture) and rendered on a template with transparent
 * output; the rendered outer 2 px of the figure must carry the figure's colours, not the background's.
 */
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import sharp from 'sharp';
import { createEngine, rigFromTexture, type CharacterAssets, type MotionAssets, type Rig } from '../../src/engine/index.js';
import { resolveTools } from '../../src/engine/media/ffmpeg.js';
import { createFrameRenderer } from '../../src/engine/render/render-video.js';
import { FIGURE_H, FIGURE_W, figureSvg } from '../helpers/figures.js';

const engine = createEngine({ tools: resolveTools(process.env) });
let work = '';
before(async () => {
  work = await mkdtemp(join(tmpdir(), 'marionette-edges-'));
});
after(async () => {
  await rm(work, { recursive: true, force: true });
});

/** The outline colour instead of the figures' near-black one, far from white, black and grey. */
const OUTLINE = '#7a2a9a';
const SCALE = 2;
const PAD = 160;

type Rgb = [number, number, number];
const hex = (s: string): Rgb => [1, 3, 5].map((i) => parseInt(s.slice(i, i + 2), 16)) as Rgb;

/** The figure's palette: every fill and stroke colour of its SVG. */
function palette(svg: string): Rgb[] {
  const seen = new Set((svg.match(/#[0-9a-fA-F]{6}\b/g) ?? []).map((c) => c.toLowerCase()));
  return [...seen].map(hex);
}

type Background = 'white' | 'black' | 'stripes';
const BACKGROUND_COLOURS: Record<Background, Rgb[]> = {
  white: [[255, 255, 255]],
  black: [[0, 0, 0]],
  stripes: [
    [255, 255, 255],
    [0, 0, 0],
    [40, 190, 70],
  ],
};

/** The picture: the figure at SCALE on the background, as an opaque PNG (no alpha to help the cut). */
async function picture(svg: string, bg: Background): Promise<Buffer> {
  const W = FIGURE_W * SCALE + 2 * PAD,
    H = FIGURE_H * SCALE + 2 * PAD;
  let base: Buffer;
  if (bg === 'stripes') {
    // Diagonal stripes 10 px wide: white, black, green.
    const [a, b, c] = BACKGROUND_COLOURS.stripes.map((x) => `rgb(${x.join(',')})`);
    base = Buffer.from(
      `<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}"><defs><pattern id="s" width="30" height="30" patternUnits="userSpaceOnUse" patternTransform="rotate(35)"><rect width="10" height="30" fill="${a}"/><rect x="10" width="10" height="30" fill="${b}"/><rect x="20" width="10" height="30" fill="${c}"/></pattern></defs><rect width="${W}" height="${H}" fill="url(#s)"/></svg>`,
    );
  } else {
    const col = bg === 'white' ? '#ffffff' : '#000000';
    base = Buffer.from(`<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}"><rect width="${W}" height="${H}" fill="${col}"/></svg>`);
  }
  const fig = await sharp(Buffer.from(svg), { density: 72 * SCALE })
    .resize(FIGURE_W * SCALE, FIGURE_H * SCALE)
    .png()
    .toBuffer();
  return sharp(base)
    .composite([{ input: fig, left: PAD, top: PAD }])
    .removeAlpha()
    .png()
    .toBuffer();
}

interface RingScore {
  /** Outer-ring pixels scored (alpha >= 64, within 2 px of uncovered pixels). */
  pixels: number;
  /** Share of them nearer a background colour than any figure colour. */
  backgroundLike: number;
  /** Mean distance (RGB) to the nearest figure colour and to the nearest background colour. */
  toFigure: number;
  toBackground: number;
}

/** Renders `c` on `m` (transparent) and scores the outer 2 px of the figure on every 4th frame. */
async function ringScore(c: CharacterAssets, m: MotionAssets, figure: Rgb[], background: Rgb[]): Promise<RingScore> {
  const rig = (JSON.parse(await readFile(join(c.dir, c.characterFile), 'utf8')) as { rig: Rig }).rig;
  const fr = await createFrameRenderer({ rig, textureFile: join(c.dir, c.textureFile), motion: m, background: { mode: 'transparent' } });
  const { width: W, height: H } = fr;
  const frame = new Uint8Array(W * H * 4);
  const near = (rgb: Rgb, set: Rgb[]): number =>
    Math.min(...set.map((p) => Math.hypot(rgb[0] - p[0], rgb[1] - p[1], rgb[2] - p[2])));
  let n = 0,
    bgLike = 0,
    sumF = 0,
    sumB = 0;
  for (let i = 0; i < fr.frameCount; i += 4) {
    fr.draw(i, frame, []);
    for (let y = 2; y < H - 2; y++) {
      for (let x = 2; x < W - 2; x++) {
        const p = y * W + x;
        const a = frame[p * 4 + 3];
        if (a < 64) continue;
        // Outer 2 px: an uncovered pixel within 2 px (Chebyshev).
        let outer = false;
        for (let dy = -2; dy <= 2 && !outer; dy++) for (let dx = -2; dx <= 2 && !outer; dx++) if (frame[(p + dy * W + dx) * 4 + 3] < 8) outer = true;
        if (!outer) continue;
        // Transparent frames hold the figure over black, i.e. premultiplied colour.
        const rgb: Rgb = [0, 1, 2].map((ch) => Math.min(255, (frame[p * 4 + ch] * 255) / a)) as Rgb;
        const dF = near(rgb, figure),
          dB = near(rgb, background);
        n++;
        sumF += dF;
        sumB += dB;
        if (dB < dF) bgLike++;
      }
    }
  }
  return { pixels: n, backgroundLike: bgLike / n, toFigure: sumF / n, toBackground: sumB / n };
}

test('edges: a figure cut from white, black and striped pictures renders with its own colours at the rim', async () => {
  const { svg: raw, body } = figureSvg('cape-staff');
  const svg = raw.replaceAll('#222', OUTLINE);
  const figure = palette(svg);
  const m = await engine.writeTemplateMotion('tpl_dance', join(work, 'motion'));
  const failed: string[] = [];
  for (const bg of ['white', 'black', 'stripes'] as const) {
    const dir = join(work, bg);
    const image = join(work, `${bg}.png`);
    await writeFile(image, await picture(svg, bg));
    const c = await engine.analyzeCharacter({ imageFile: image, outDir: dir, thumbnail: false });
    // The rig from the figure's exact joints, so the test judges the cut, not the pose reading.
    const { analysis } = c;
    const crop = analysis.crop;
    analysis.body = body.map((k) => ({ x: k.x * SCALE + PAD, y: k.y * SCALE + PAD, score: 1 }));
    analysis.poseMethod = 'model';
    const rig = await rigFromTexture(analysis, join(dir, c.textureFile));
    await writeFile(join(dir, c.characterFile), JSON.stringify({ version: 1, analysis, rig }));
    const s = await ringScore(c, m, figure, BACKGROUND_COLOURS[bg]);
    const msg = `${bg} (mask ${analysis.maskMethod}, crop ${crop.width}x${crop.height}): ${JSON.stringify(s)}`;
    console.log(msg);
    // On the striped picture the person model's mask also encloses background deeper than any edge
    // band (between the head and the shoulders); that, not the rim, is what the looser bound allows.
    const share = bg === 'stripes' ? 0.12 : 0.03;
    if (!(s.pixels > 1000 && s.backgroundLike <= share && s.toFigure < s.toBackground / 2)) failed.push(msg);
  }
  assert.deepEqual(failed, []);
});
