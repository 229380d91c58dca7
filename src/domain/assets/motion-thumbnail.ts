import type { MotionTrack } from '../ports/engine.js';

/**
 * A Motion's gallery picture: its pose track drawn as stick figures at a few moments of the clip
 * (earlier ones fainter), on the driving video's canvas. Pure: track in, SVG text out.
 */

/** COCO-17 limbs by keypoint index (the track's `body` order, src/engine/types.ts BODY_JOINTS). */
const LIMBS: ReadonlyArray<readonly [number, number]> = [
  [5, 7],
  [7, 9],
  [6, 8],
  [8, 10], // arms
  [5, 6],
  [11, 12],
  [5, 11],
  [6, 12], // torso
  [11, 13],
  [13, 15],
  [12, 14],
  [14, 16], // legs
  [0, 5],
  [0, 6], // neck, as the nose to each shoulder
];
const MOMENTS = 5;
/** Keypoints of a detected frame scored below this are not drawn; a gap-filled frame (score 0) is drawn as filled. */
const MIN_SCORE = 0.2;

const fmt = (n: number) => (Math.round(n * 10) / 10).toString();

export function motionThumbnailSvg(track: MotionTrack): string {
  const w = Math.max(1, track.width);
  const h = Math.max(1, track.height);
  const stroke = Math.max(2, Math.round(Math.min(w, h) / 60));
  const frames = track.frames;
  const figures: string[] = [];
  for (let m = 0; m < MOMENTS && frames.length > 0; m++) {
    const frame = frames[Math.min(frames.length - 1, Math.round(((m + 0.5) / MOMENTS) * (frames.length - 1)))]!;
    const usable = (i: number) => {
      const k = frame.body[i];
      return k !== undefined && (!frame.detected || k.score >= MIN_SCORE);
    };
    const lines = LIMBS.filter(([a, b]) => usable(a) && usable(b)).map(([a, b]) => {
      const p = frame.body[a]!;
      const q = frame.body[b]!;
      return `<line x1="${fmt(p.x)}" y1="${fmt(p.y)}" x2="${fmt(q.x)}" y2="${fmt(q.y)}"/>`;
    });
    const head = usable(0) ? `<circle cx="${fmt(frame.body[0]!.x)}" cy="${fmt(frame.body[0]!.y)}" r="${fmt(stroke * 2.5)}"/>` : '';
    if (lines.length === 0 && head === '') continue;
    const opacity = 0.25 + (0.75 * (m + 1)) / MOMENTS;
    figures.push(`<g opacity="${opacity.toFixed(2)}">${lines.join('')}${head}</g>`);
  }
  return (
    `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${w} ${h}" width="${w}" height="${h}">` +
    `<rect width="${w}" height="${h}" fill="#1d2733"/>` +
    `<g fill="#7fd1ff" stroke="#7fd1ff" stroke-width="${stroke}" stroke-linecap="round">${figures.join('')}</g></svg>`
  );
}
