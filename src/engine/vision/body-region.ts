/**
 * A generous person region drawn from COCO-17 keypoints: capsules along the limbs, a filled torso and a
 * head disc, all sized from the figure's own torso length so it scales with distance to the camera.
 * Used to exclude the performer when building a background plate; over-covering is cheap there
 * (another frame supplies the pixel), under-covering leaves ghosts, so the radii err on the large side.
 */
import type { Keypoint } from '../types.js';

const LIMBS: Array<[number, number, number]> = [
  // [from, to, extension past `to` as a fraction of the segment: hands and feet reach beyond the joint]
  [5, 7, 0],
  [7, 9, 0.45],
  [6, 8, 0],
  [8, 10, 0.45],
  [11, 13, 0],
  [13, 15, 0.35],
  [12, 14, 0],
  [14, 16, 0.35],
  [5, 6, 0],
  [11, 12, 0],
  [5, 11, 0],
  [6, 12, 0],
];

function mid(a: Keypoint, b: Keypoint): { x: number; y: number } {
  return { x: (a.x + b.x) / 2, y: (a.y + b.y) / 2 };
}

/** Torso length in pixels (mid-shoulder to mid-hip), with a floor from the keypoints' spread. */
export function bodyScale(body: Keypoint[]): number {
  const s = mid(body[5], body[6]);
  const h = mid(body[11], body[12]);
  const torso = Math.hypot(s.x - h.x, s.y - h.y);
  const xs = body.map((k) => k.x);
  const ys = body.map((k) => k.y);
  const spread = Math.max(Math.max(...xs) - Math.min(...xs), Math.max(...ys) - Math.min(...ys));
  return Math.max(torso, spread / 3.5, 1);
}

function stampCapsule(mask: Uint8Array, w: number, h: number, ax: number, ay: number, bx: number, by: number, r: number): void {
  const x0 = Math.max(0, Math.floor(Math.min(ax, bx) - r));
  const x1 = Math.min(w - 1, Math.ceil(Math.max(ax, bx) + r));
  const y0 = Math.max(0, Math.floor(Math.min(ay, by) - r));
  const y1 = Math.min(h - 1, Math.ceil(Math.max(ay, by) + r));
  const dx = bx - ax;
  const dy = by - ay;
  const len2 = dx * dx + dy * dy || 1e-9;
  const r2 = r * r;
  for (let y = y0; y <= y1; y++) {
    for (let x = x0; x <= x1; x++) {
      const t = Math.max(0, Math.min(1, ((x - ax) * dx + (y - ay) * dy) / len2));
      const ex = x - (ax + t * dx);
      const ey = y - (ay + t * dy);
      if (ex * ex + ey * ey <= r2) mask[y * w + x] = 1;
    }
  }
}

function fillTriangle(mask: Uint8Array, w: number, h: number, p: Array<{ x: number; y: number }>): void {
  const [a, b, c] = p;
  const x0 = Math.max(0, Math.floor(Math.min(a.x, b.x, c.x)));
  const x1 = Math.min(w - 1, Math.ceil(Math.max(a.x, b.x, c.x)));
  const y0 = Math.max(0, Math.floor(Math.min(a.y, b.y, c.y)));
  const y1 = Math.min(h - 1, Math.ceil(Math.max(a.y, b.y, c.y)));
  const area = (b.x - a.x) * (c.y - a.y) - (b.y - a.y) * (c.x - a.x);
  if (Math.abs(area) < 1e-6) return;
  for (let y = y0; y <= y1; y++) {
    for (let x = x0; x <= x1; x++) {
      const w0 = ((b.x - x) * (c.y - y) - (b.y - y) * (c.x - x)) / area;
      const w1 = ((c.x - x) * (a.y - y) - (c.y - y) * (a.x - x)) / area;
      if (w0 >= 0 && w1 >= 0 && w0 + w1 <= 1) mask[y * w + x] = 1;
    }
  }
}

/**
 * Marks (sets to 1) the person region of `body` into `mask` (w*h, row-major). `body` is in the mask's
 * pixel space. `grow` multiplies every radius (1 = defaults tuned for plate building).
 */
export function drawBodyRegion(mask: Uint8Array, w: number, h: number, body: Keypoint[], grow = 1): void {
  const scale = bodyScale(body);
  const limbR = 0.28 * scale * grow;
  for (const [a, b, ext] of LIMBS) {
    const pa = body[a];
    const pb = body[b];
    const ex = pb.x + (pb.x - pa.x) * ext;
    const ey = pb.y + (pb.y - pa.y) * ext;
    stampCapsule(mask, w, h, pa.x, pa.y, ex, ey, limbR);
  }
  fillTriangle(mask, w, h, [body[5], body[6], body[12]]);
  fillTriangle(mask, w, h, [body[5], body[12], body[11]]);
  // Head: a disc around the face points, reaching up for hair; radius from the torso, not the face,
  // because face points collapse when the head turns away.
  const face = body.slice(0, 5);
  const cx = face.reduce((s, k) => s + k.x, 0) / face.length;
  const cy = face.reduce((s, k) => s + k.y, 0) / face.length;
  const headR = 0.5 * scale * grow;
  stampCapsule(mask, w, h, cx, cy + headR * 0.2, cx, cy - headR * 0.5, headR);
  // Neck, and long hair hanging beside it down over the chest (segmentation often misses dark hair
  // on a dark or saturated background): a wide capsule from the face to below the shoulders.
  const neck = mid(body[5], body[6]);
  const hip = mid(body[11], body[12]);
  const hx = neck.x + (hip.x - neck.x) * 0.35,
    hy = neck.y + (hip.y - neck.y) * 0.35;
  stampCapsule(mask, w, h, cx, cy, hx, hy, 0.42 * scale * grow);
}
