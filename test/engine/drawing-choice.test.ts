/**
 * Which drawing on a sheet is the figure, and where a drawing too faint to be ink lies
 * (character/drawing.ts, drawingMask at the working size).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import sharp from 'sharp';
import { drawingMask } from '../../src/engine/character/drawing.js';
import { maskBounds } from '../../src/engine/vision/mask-ops.js';

const W = 768,
  H = 576;

/** A lit sheet (light falling off to the right) with `body` drawn on it, as working-size RGBA. */
async function sheet(body: string): Promise<Buffer> {
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}">
    <defs><linearGradient id="l"><stop offset="0" stop-color="#f4efe2"/><stop offset="1" stop-color="#d8d2c4"/></linearGradient></defs>
    <rect width="100%" height="100%" fill="url(#l)"/>${body}</svg>`;
  const { data } = await sharp(Buffer.from(svg)).ensureAlpha().raw().toBuffer({ resolveWithObject: true });
  // Sensor noise, as on a photo: +-4 levels from a fixed sequence.
  let seed = 7;
  for (let p = 0; p < W * H; p++) {
    seed = (seed * 1664525 + 1013904223) >>> 0;
    const n = (seed / 4294967296 - 0.5) * 8;
    for (let c = 0; c < 3; c++) data[p * 4 + c] = Math.max(0, Math.min(255, data[p * 4 + c] + n));
  }
  return data;
}

test('the figure is the drawing that encloses the most, not a wider doodle beside it', async () => {
  // A round-bodied figure in a thin line at the right; at the left a sun with rays standing on a zigzag
  // across half the sheet, in a thick dark stroke: a wider box and more ink than the figure.
  const rgba = await sheet(`
    <g fill="none" stroke="#303030" stroke-width="2">
      <ellipse cx="560" cy="300" rx="60" ry="38"/><circle cx="635" cy="270" r="24"/>
      <path d="M520 336 L515 370 M545 338 L545 372 M580 338 L580 372 M605 334 L610 368"/>
    </g>
    <g fill="none" stroke="#181818" stroke-width="6">
      <circle cx="200" cy="240" r="22"/>
      <path d="M200 205 L200 190 M200 275 L200 290 M165 240 L150 240 M235 240 L250 240 M175 215 L165 205 M225 215 L235 205 M175 265 L165 275 M225 265 L235 275"/>
      <path d="M40 300 L90 285 L140 300 L190 285 L240 300 L290 285 L340 300 L390 285"/>
    </g>`);
  const d = drawingMask(rgba, W, H);
  const b = maskBounds(d.mask, W, H);
  assert.ok(b, 'a figure is found');
  assert.ok(b.x0 >= 480 && b.x1 <= 680, `figure's box ${JSON.stringify(b)} on the round figure`);
  // The doodle stays a rival, read closer when the figure is small (reading.ts).
  assert.ok(
    d.rivals?.some((r) => r.x1 < 400),
    `rivals ${JSON.stringify(d.rivals)}`,
  );
});

test('a stick figure is the figure beside a sun whose disc is larger than its head', async () => {
  // A stick figure 220 px tall in a thin grey line (its head r 18 is all it encloses) at the right; at the
  // left a sun (disc r 40, rays) standing on a zigzag, in a thick dark stroke: it encloses five times
  // the stick figure's head. The stick figure's limbs reach round its body; the zigzag and the rays do not.
  const rgba = await sheet(`
    <g fill="none" stroke="#404040" stroke-width="2">
      <circle cx="560" cy="170" r="18"/>
      <path d="M560 188 L560 280 M560 205 L520 165 M560 205 L600 165 M560 280 L535 370 M560 280 L585 370"/>
    </g>
    <g fill="none" stroke="#181818" stroke-width="5">
      <circle cx="200" cy="200" r="40"/>
      <path d="M200 148 L200 125 M200 252 L200 275 M148 200 L125 200 M252 200 L275 200 M163 163 L147 147 M237 163 L253 147 M163 237 L147 253 M237 237 L253 253"/>
      <path d="M40 290 L90 270 L140 290 L190 270 L240 290 L290 270 L340 290 L390 270"/>
    </g>`);
  const d = drawingMask(rgba, W, H);
  const b = maskBounds(d.mask, W, H);
  assert.ok(b, 'a figure is found');
  assert.ok(b.x0 >= 500 && b.x1 <= 620 && b.y0 <= 160 && b.y1 >= 360, `figure's box ${JSON.stringify(b)} on the stick figure`);
});

test('a drawing too faint to be ink is located by its faint strokes; bare paper gives no box', async () => {
  // A light grey outline 6-9% darker than its paper: under the ink level once reduced to the working size.
  const rgba = await sheet(`
    <g fill="none" stroke="#dcd6c8" stroke-width="1.5" opacity="0.9">
      <ellipse cx="420" cy="300" rx="40" ry="24"/><circle cx="468" cy="284" r="14"/>
      <path d="M395 322 L392 342 M445 322 L448 342"/>
    </g>`);
  const d = drawingMask(rgba, W, H);
  assert.ok(d.evidence.inkShare < 0.0005, `ink share ${d.evidence.inkShare}: too little to be a drawing`);
  const b = d.inkBox;
  assert.ok(b && b.x0 >= 370 && b.x1 <= 490 && b.y0 >= 260 && b.y1 <= 350, `faint strokes' box ${JSON.stringify(b)}`);
  const bare = drawingMask(await sheet(''), W, H);
  assert.equal(bare.inkBox, undefined, `bare paper: ${JSON.stringify(bare.inkBox)}`);
});

test('a stick figure is the figure beside a house that encloses more than its limbs reach round', async () => {
  // At the left a house (walls 110 x 80, a roof, a door and a window) in a dark line; at the right a
  // stick figure 260 px tall in a thin grey line, arms raised and legs close: its head is all it encloses
  // and its limbs' bands less than the house encloses, but they hang from the head and reach six head
  // sizes below it.
  const rgba = await sheet(`
    <g fill="none" stroke="#202020" stroke-width="4">
      <path d="M145 300 L145 380 L255 380 L255 300 Z M130 300 L200 245 L270 300 M188 380 L188 340 L212 340 L212 380"/>
      <rect x="220" y="315" width="22" height="18"/>
    </g>
    <g fill="none" stroke="#505050" stroke-width="2">
      <circle cx="560" cy="150" r="22"/>
      <path d="M560 172 L560 285 M560 195 L515 130 M560 195 L605 130 M560 285 L548 390 M560 285 L572 390"/>
    </g>`);
  const d = drawingMask(rgba, W, H);
  const b = maskBounds(d.mask, W, H);
  assert.ok(b, 'a figure is found');
  assert.ok(b.x0 >= 490 && b.x1 <= 630 && b.y0 <= 140 && b.y1 >= 380, `figure's box ${JSON.stringify(b)} on the stick figure`);
});

test('a thick stick figure whose body and legs are one line is the figure beside a house', async () => {
  // Marker strokes: the raised arms end in circles beside the head (arms, hands and head one outline),
  // body and legs drawn together hang below it as one thick line pointing at the head.
  const rgba = await sheet(`
    <g fill="none" stroke="#202020" stroke-width="4">
      <path d="M145 300 L145 380 L255 380 L255 300 Z M130 300 L200 245 L270 300 M188 380 L188 340 L212 340 L212 380"/>
      <rect x="220" y="315" width="22" height="18"/>
    </g>
    <g fill="none" stroke="#101010" stroke-width="7">
      <circle cx="560" cy="140" r="26"/>
      <circle cx="500" cy="115" r="14"/><circle cx="620" cy="115" r="14"/>
      <path d="M560 166 L560 290 M560 180 L510 127 M560 180 L610 127 M560 290 L553 400 M560 290 L567 400"/>
    </g>`);
  const d = drawingMask(rgba, W, H);
  const b = maskBounds(d.mask, W, H);
  assert.ok(b, 'a figure is found');
  assert.ok(b.x0 >= 480 && b.x1 <= 640 && b.y0 <= 130 && b.y1 >= 390, `figure's box ${JSON.stringify(b)} on the stick figure`);
});

test('a figure hatched across its level arms is filled whole: its hatching is no margin', async () => {
  // A pencil outline (head, arms held level across 60% of the sheet, round body, two legs) whose inside is
  // hatched in level orange strokes. The strokes across the arms run over 40% of the sheet's width, like a
  // margin, and taking them out opened the arms' outline: the body and legs were lost (generated seed 25).
  const shape = (paint: string, grow: number): string => `<g fill="${paint}" stroke="${paint}" stroke-width="${grow}">
      <circle cx="384" cy="130" r="70"/><rect x="150" y="205" width="468" height="34" rx="17"/>
      <ellipse cx="384" cy="290" rx="60" ry="65"/><rect x="344" y="330" width="32" height="170"/><rect x="392" y="330" width="32" height="170"/></g>`;
  const hatch = Array.from({ length: 80 }, (_, i) => {
    const y = 40 + 6 * i + (((i * 7) % 5) - 2) * 0.9;
    return `<path d="M0 ${y} L${W} ${y + 3}"/>`;
  }).join('');
  const rgba = await sheet(`
    <defs><mask id="in">${shape('white', 0)}</mask></defs>
    ${shape('#7a7a7a', 4)}${shape('#f4efe2', 0)}
    <g mask="url(#in)" stroke="#f0a050" stroke-width="2.5">${hatch}</g>`);
  const d = drawingMask(rgba, W, H);
  // Nor are its strokes, at a regular spacing, a ruled sheet's lines (20 were counted).
  assert.equal(d.evidence.ruledLines, 0, 'no ruled lines');
  const b = maskBounds(d.mask, W, H);
  assert.ok(b, 'a figure is found');
  assert.ok(b.x0 <= 155 && b.x1 >= 613 && b.y0 <= 65 && b.y1 >= 495, `figure's box ${JSON.stringify(b)} from hand to hand, head to feet`);
  // Inside the body, both legs and both arms: filled, not only the outline.
  for (const [x, y] of [
    [384, 290],
    [360, 450],
    [408, 450],
    [200, 222],
    [570, 222],
  ])
    assert.equal(d.mask[y * W + x], 1, `${x},${y} is in the figure`);
});

test("a hat's brim wider than the head under it is the figure's stroke, not a margin", async () => {
  // A pencil outline: a top hat whose brim runs over 40% of the sheet's width, the head's round meeting
  // the brim's lower edge along less than half of it, a round body and two legs. The brim's lower edge,
  // long and straight, was taken out as a margin crossing the drawing: the outline opened at the top and
  // only the limbs were filled (generated seed 7 as drawn, IoU 0.26).
  const rgba = await sheet(`
    <g fill="none" stroke="#7a7a7a" stroke-width="2">
      <path d="M220 100 L300 100 L300 40 L468 40 L468 100 L548 100 L548 120 L220 120 Z"/>
      <path d="M313 120 A100 100 0 1 0 455 120"/>
      <ellipse cx="384" cy="360" rx="60" ry="70"/>
      <path d="M360 425 L350 540 M408 425 L418 540"/>
    </g>`);
  const d = drawingMask(rgba, W, H);
  const b = maskBounds(d.mask, W, H);
  assert.ok(b, 'a figure is found');
  assert.ok(b.x0 <= 222 && b.x1 >= 546 && b.y0 <= 42, `figure's box ${JSON.stringify(b)} takes in the hat`);
  // The head, the hat's crown, both ends of the brim and the body: filled, not only their strokes.
  for (const [x, y] of [
    [384, 200],
    [384, 70],
    [235, 110],
    [533, 110],
    [384, 360],
  ])
    assert.equal(d.mask[y * W + x], 1, `${x},${y} is in the figure`);
});
