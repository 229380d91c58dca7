import { readFileSync } from 'node:fs';
import sharp from 'sharp';
import { buildSplats } from '../src/engine/three-d/splat-build.js';
import { renderSplats, textureCamera } from '../src/engine/three-d/splat-render.js';
import { lumaOf, ssim } from '../test/helpers/image-metrics.js';
for (const name of process.argv.slice(2)) {
  const dir = `/tmp/i12-chars/${name}`;
  const cf = JSON.parse(readFileSync(`${dir}/character.json`, 'utf8'));
  const { data, info } = await sharp(`${dir}/texture.png`).ensureAlpha().raw().toBuffer({ resolveWithObject: true });
  const t0 = performance.now();
  const cloud = buildSplats({ data, width: info.width, height: info.height }, cf.analysis, { jointSet: 'body' });
  const t1 = performance.now();
  const W = info.width,
    H = info.height;
  const front = renderSplats(cloud, textureCamera(cloud, W, H));
  const t2 = performance.now();
  const side = renderSplats(cloud, textureCamera(cloud, W, H, 30));
  let inter = 0,
    uni = 0;
  const bg = 128;
  const a = new Uint8Array(W * H * 3),
    b = new Uint8Array(W * H * 3);
  for (let p = 0; p < W * H; p++) {
    const m = data[p * 4 + 3] >= 128,
      r = front[p * 4 + 3] >= 128;
    if (m && r) inter++;
    if (m || r) uni++;
    for (let k = 0; k < 3; k++) {
      a[p * 3 + k] = Math.round((data[p * 4 + k] * data[p * 4 + 3] + bg * (255 - data[p * 4 + 3])) / 255);
      b[p * 3 + k] = Math.round((front[p * 4 + k] * front[p * 4 + 3] + bg * (255 - front[p * 4 + 3])) / 255);
    }
  }
  // SSIM inside the mask: masked-out pixels set equal in both images.
  for (let p = 0; p < W * H; p++) if (data[p * 4 + 3] < 128) for (let k = 0; k < 3; k++) b[p * 3 + k] = a[p * 3 + k];
  const s = ssim(lumaOf(a, W, H, 3), lumaOf(b, W, H, 3), W, H);
  console.log(
    name,
    W,
    H,
    'splats',
    cloud.count,
    'build ms',
    (t1 - t0).toFixed(0),
    'render ms',
    (t2 - t1).toFixed(0),
    'IoU',
    (inter / uni).toFixed(3),
    'SSIM',
    s.toFixed(3),
  );
  const toPng = (px: Uint8Array) =>
    sharp(Buffer.from(px), { raw: { width: W, height: H, channels: 4 } })
      .flatten({ background: '#808080' })
      .png()
      .toBuffer();
  await sharp({ create: { width: W * 3, height: H, channels: 3, background: '#808080' } })
    .composite([
      { input: await sharp(`${dir}/texture.png`).flatten({ background: '#808080' }).png().toBuffer(), left: 0, top: 0 },
      { input: await toPng(front), left: W, top: 0 },
      { input: await toPng(side), left: 2 * W, top: 0 },
    ])
    .png()
    .toBuffer()
    .then((b) => sharp(b).resize({ height: 700 }).png().toFile(`/tmp/i12-sheet-${name}.png`));
}
