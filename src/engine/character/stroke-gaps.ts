/**
 * Gaps in a drawing's outline that the ink threshold leaves (drawing.ts, drawingMask): where a stroke
 * crosses or runs along a ruled line its pixels in the line's hue go with the line, and where a pencil
 * stroke is drawn lighter it falls under the ink level. Either way the outline is open, the fill leaks out
 * and the body is lost. See docs/figures.md, "Gaps in a faint or lined outline".
 */
import { dilate, forEachComponent8 } from '../vision/mask-ops.js';

/**
 * What was taken out with the ruled or squared lines (`lines`: the pixels dropped in the lines' hue;
 * `found`: the ink before the paper's furniture went, so the lines' crumbs beside them count too) where a
 * stroke crosses a line or lies along it for a few pixels: the stroke's pieces either side are joined
 * again by a straight segment over what was taken out. The pieces are the ink touching what was taken
 * out, in separate places; two are joined when they are at most a line's thickness (twice the lines'
 * area over their edge) and two pixels apart, and the segment between their nearest pixels runs over
 * what was taken out (a square closing does not join two thin stroke ends offset across the line).
 */
export function rejoinAcrossLines(
  ink: Uint8Array,
  lines: Uint8Array,
  found: Uint8Array,
  strength: Uint8Array,
  crumb: number,
  w: number,
  h: number,
): void {
  const n = w * h;
  let count = 0,
    edge = 0;
  for (let p = 0; p < n; p++) {
    if (!lines[p]) continue;
    count++;
    const x = p % w;
    if (x === 0 || x === w - 1 || p < w || p >= n - w || !lines[p - 1] || !lines[p + 1] || !lines[p - w] || !lines[p + w]) edge++;
  }
  if (!count) return;
  const reach = Math.ceil((2 * count) / Math.max(1, edge)) + 2;
  const near = dilate(lines, w, h, 2);
  const gone = new Uint8Array(n);
  for (let p = 0; p < n; p++) gone[p] = near[p] && found[p] && !ink[p] ? 1 : 0;
  // Beside a line, a widening is a stroke lying along it (its pixels took the line's hue from the line's
  // blur), on a sheet that has strokes: on one with almost none it is the line's own wobble or grain.
  let inked = 0;
  for (let p = 0; p < n; p++) inked += ink[p];
  if (inked >= INKED_SHEET * n) {
    const beside = strokesBesideLines(gone, w, h);
    for (let p = 0; p < n; p++) {
      if (!beside[p]) continue;
      ink[p] = 1;
      gone[p] = 0;
    }
  }
  // A stroke lying along a line darkens it further: what was taken out darker than nearly all the lines'
  // pixels (ALONG_LINE levels over their 90th percentile), reached from a stroke, is that stroke.
  const hist = new Uint32Array(256);
  for (let p = 0; p < n; p++) if (lines[p]) hist[strength[p]]++;
  let acc = 0,
    level = 255;
  for (let v = 0; v < 256; v++)
    if ((acc += hist[v]) >= 0.9 * count) {
      level = v;
      break;
    }
  const darker = Math.min(255, level + ALONG_LINE);
  const todo: number[] = [];
  for (let p = 0; p < n; p++) if (ink[p]) todo.push(p);
  while (todo.length) {
    const p = todo.pop()!;
    const x = p % w,
      y = (p - x) / w;
    for (let dy = -1; dy <= 1; dy++) {
      for (let dx = -1; dx <= 1; dx++) {
        const xx = x + dx,
          yy = y + dy;
        if (xx < 0 || yy < 0 || xx >= w || yy >= h) continue;
        const q = yy * w + xx;
        if (!gone[q] || strength[q] < darker) continue;
        gone[q] = 0;
        ink[q] = 1;
        todo.push(q);
      }
    }
  }
  // The lines' crumbs (taken out beside a line, not in its hue) that join two strokes: a stroke lying
  // just beside a line for a stretch (a head's top along it) was dropped as a crumb.
  const crumbs = new Uint8Array(n);
  for (let p = 0; p < n; p++) crumbs[p] = gone[p] && !lines[p] ? 1 : 0;
  const byInk = dilate(ink, w, h, 1);
  const contact = new Uint8Array(n);
  const visit = new Int32Array(n).fill(-1);
  forEachComponent8(crumbs, w, h, (members, k) => {
    if (k > crumb) return;
    const contacts: number[] = [];
    for (let i = 0; i < k; i++) if (byInk[members[i]]) contacts.push(members[i]);
    if (!closesGap(contacts, ink, w, h, contact, visit)) return;
    for (let i = 0; i < k; i++) {
      ink[members[i]] = 1;
      gone[members[i]] = 0;
    }
  });
  const touch = dilate(gone, w, h, 1);
  contact.fill(0);
  for (let p = 0; p < n; p++) contact[p] = ink[p] && touch[p] ? 1 : 0;
  const pieces: Array<{ px: Int32Array; x0: number; y0: number; x1: number; y1: number }> = [];
  forEachComponent8(contact, w, h, (members, k, b) => pieces.push({ px: members.slice(0, k), ...b }));
  const joins: Array<[number, number]> = [];
  for (let i = 0; i < pieces.length; i++) {
    const a = pieces[i];
    for (let j = i + 1; j < pieces.length; j++) {
      const b = pieces[j];
      if (b.x0 - a.x1 > reach || a.x0 - b.x1 > reach || b.y0 - a.y1 > reach || a.y0 - b.y1 > reach) continue;
      let best = Infinity,
        pa = -1,
        pb = -1;
      for (const p of a.px) {
        for (const q of b.px) {
          const d = Math.hypot((p % w) - (q % w), Math.floor(p / w) - Math.floor(q / w));
          if (d < best) [best, pa, pb] = [d, p, q];
        }
      }
      if (best > 1.5 && best <= reach) joins.push([pa, pb]);
    }
  }
  for (const [p, q] of joins) {
    const x0 = p % w,
      y0 = (p - x0) / w,
      x1 = q % w,
      y1 = (q - x1) / w;
    const steps = Math.ceil(Math.max(Math.abs(x1 - x0), Math.abs(y1 - y0)));
    const path: number[] = [];
    let over = 0;
    for (let s = 1; s < steps; s++) {
      const t = Math.round(y0 + ((y1 - y0) * s) / steps) * w + Math.round(x0 + ((x1 - x0) * s) / steps);
      path.push(t);
      if (gone[t] || ink[t]) over++;
    }
    if (over < 0.8 * path.length) continue;
    for (const t of path) if (gone[t]) ink[t] = 1;
  }
}

/** Levels over the lines' own darkness (their 90th percentile) from which a line's pixel holds a stroke too. */
const ALONG_LINE = 16;

/** The least mean strength (0..255, over 3x3) of a faint bridge, whatever the paper's noise. */
const MIN_BRIDGE = 10;
/** The faint level over the paper's noise: its median and this many times its spread to the 90th percentile. */
const NOISE_SPREADS = 2;
/** A bridge is a line: its thickness (twice its area over its edge) at most this many pixels, or the strokes' own and two. */
const BRIDGE_THICKNESS = 4;
/** A bridge's ends joined along the ink within this many times their distance close no gap. */
const LOOP_PER_SPAN = 2;
/** The least distance (px) between the places where a bridge touches the ink. */
const BRIDGE_SPAN = 4;

/**
 * Faint stretches of an outline between two ink pieces: the strength averaged over 3x3 (a 1-2 px pencil
 * line keeps most of its darkness, the paper's grain loses most of its own) over the paper's noise there
 * (its median plus three times its spread to the 90th percentile, at least MIN_BRIDGE), away from the
 * ink; a connected piece of it is a bridge when it is a line (BRIDGE_THICKNESS), touches the ink at two
 * places at least four pixels apart and mostly lies beyond the ink's reach (a halo along a stroke touches
 * it everywhere). Bridges and what links them to the ink become ink. `blocked`: pixels that are no
 * stroke (the paper's furniture and its blur, the sheet's edge). Returns the number of pixels added.
 */
export function bridgeFaintGaps(ink: Uint8Array, strength: Uint8Array, blocked: (p: number) => boolean, w: number, h: number): number {
  const n = w * h;
  const mean = new Float32Array(n);
  for (let y = 1; y < h - 1; y++) {
    for (let x = 1; x < w - 1; x++) {
      const p = y * w + x;
      mean[p] =
        (strength[p - w - 1] +
          strength[p - w] +
          strength[p - w + 1] +
          strength[p - 1] +
          strength[p] +
          strength[p + 1] +
          strength[p + w - 1] +
          strength[p + w] +
          strength[p + w + 1]) /
        9;
    }
  }
  const reach = dilate(ink, w, h, 1);
  const clear = dilate(reach, w, h, 1);
  const hist = new Uint32Array(256);
  let seen = 0;
  for (let p = 0; p < n; p++) {
    if (clear[p] || blocked(p)) continue;
    hist[Math.min(255, Math.round(mean[p]))]++;
    seen++;
  }
  if (!seen) return 0;
  const level = (share: number): number => {
    let acc = 0;
    for (let v = 0; v < 256; v++) if ((acc += hist[v]) >= share * seen) return v;
    return 255;
  };
  const median = level(0.5),
    p90 = level(0.9);
  const floor = Math.max(MIN_BRIDGE, p90 + NOISE_SPREADS * (p90 - median));
  const faint = new Uint8Array(n);
  for (let p = 0; p < n; p++) if (mean[p] >= floor && !reach[p] && !blocked(p)) faint[p] = 1;
  // A bridge is a line as thick as the strokes are, widened by the 3x3 mean (one pixel either side).
  let inkCount = 0,
    inkEdge = 0;
  for (let p = w; p < n - w; p++) {
    if (!ink[p]) continue;
    inkCount++;
    if (!ink[p - 1] || !ink[p + 1] || !ink[p - w] || !ink[p + w]) inkEdge++;
  }
  const thickest = Math.max(BRIDGE_THICKNESS, (2 * inkCount) / Math.max(1, inkEdge) + 2);
  const bridge = new Uint8Array(n);
  const contact = new Uint8Array(n);
  const visit = new Int32Array(n).fill(-1);
  let bridges = 0;
  forEachComponent8(faint, w, h, (members, count) => {
    if (count < 2) return;
    let edge = 0;
    const contacts: number[] = [];
    for (let i = 0; i < count; i++) {
      const p = members[i];
      if (!faint[p - 1] || !faint[p + 1] || !faint[p - w] || !faint[p + w]) edge++;
      if (clear[p]) contacts.push(p);
    }
    if ((2 * count) / Math.max(1, edge) > thickest || contacts.length < 2) return;
    if (!closesGap(contacts, ink, w, h, contact, visit)) return;
    for (let i = 0; i < count; i++) bridge[members[i]] = 1;
    bridges++;
  });
  if (!bridges) return 0;
  // The link from each bridge to the ink: what is faint enough within the ink's reach beside it.
  const link = dilate(bridge, w, h, 2);
  let added = 0;
  for (let p = 0; p < n; p++) {
    if (ink[p] || !link[p] || (!bridge[p] && (mean[p] < floor || blocked(p)))) continue;
    ink[p] = 1;
    added++;
  }
  return added;
}

/**
 * Whether ink within two pixels of `a` reaches ink within two pixels of `b` along the ink (8-connected)
 * in at most `limit` steps. `visit` (one entry per pixel, -1 at first) holds step counts between calls.
 */
function alongInk(
  ink: Uint8Array,
  w: number,
  h: number,
  a: [number, number],
  b: [number, number],
  limit: number,
  visit: Int32Array,
): boolean {
  const touched: number[] = [];
  let frontier: number[] = [];
  for (let dy = -2; dy <= 2; dy++) {
    for (let dx = -2; dx <= 2; dx++) {
      const x = a[0] + dx,
        y = a[1] + dy;
      if (x < 0 || y < 0 || x >= w || y >= h || !ink[y * w + x]) continue;
      visit[y * w + x] = 0;
      touched.push(y * w + x);
      frontier.push(y * w + x);
    }
  }
  let found = false;
  for (let step = 0; step <= limit && frontier.length && !found; step++) {
    const next: number[] = [];
    for (const p of frontier) {
      const x = p % w,
        y = (p - x) / w;
      if (Math.abs(x - b[0]) <= 2 && Math.abs(y - b[1]) <= 2) {
        found = true;
        break;
      }
      for (let dy = -1; dy <= 1; dy++) {
        for (let dx = -1; dx <= 1; dx++) {
          const xx = x + dx,
            yy = y + dy;
          if (xx < 0 || yy < 0 || xx >= w || yy >= h) continue;
          const q = yy * w + xx;
          if (!ink[q] || visit[q] >= 0) continue;
          visit[q] = step + 1;
          touched.push(q);
          next.push(q);
        }
      }
    }
    frontier = next;
  }
  for (const p of touched) visit[p] = -1;
  return found;
}

/**
 * Whether a piece touching the ink at `contacts` closes a gap in it: the contacts lie in separate places
 * (a halo along a stroke touches it all along, a bridge at both its ends) at least BRIDGE_SPAN apart, and
 * the ink does not already join them within LOOP_PER_SPAN times their distance (a smudge or a crayon's
 * edge beside a stroke closes only a sliver; a gap's ends are joined the long way round, or not at all).
 * `contact` and `visit`: scratch planes, left as they were given (0 and -1).
 */
function closesGap(contacts: number[], ink: Uint8Array, w: number, h: number, contact: Uint8Array, visit: Int32Array): boolean {
  if (contacts.length < 2) return false;
  for (const p of contacts) contact[p] = 1;
  const ends: Array<[number, number]> = [];
  for (const start of contacts) {
    if (contact[start] !== 1) continue;
    contact[start] = 2;
    const todo = [start];
    ends.push([start % w, Math.floor(start / w)]);
    while (todo.length) {
      const p = todo.pop()!;
      for (const q of [p - w - 1, p - w, p - w + 1, p - 1, p + 1, p + w - 1, p + w, p + w + 1]) {
        if (contact[q] !== 1) continue;
        contact[q] = 2;
        todo.push(q);
      }
    }
  }
  for (const p of contacts) contact[p] = 0;
  if (ends.length < 2) return false;
  let far = 0,
    a = ends[0],
    b = ends[1];
  for (let i = 0; i < ends.length; i++) {
    for (let j = i + 1; j < ends.length; j++) {
      const d = Math.hypot(ends[i][0] - ends[j][0], ends[i][1] - ends[j][1]);
      if (d > far) [far, a, b] = [d, ends[i], ends[j]];
    }
  }
  if (far < BRIDGE_SPAN) return false;
  if (alongInk(ink, w, h, a, b, Math.ceil(LOOP_PER_SPAN * far + 8), visit)) return false;
  return true;
}

/** A sheet with strokes: at least this share of its pixels ink (drawingMask's least ink for a drawing). */
const INKED_SHEET = 0.0005;
/** Columns either side in which a line's own run is looked for (strokesBesideLines). */
const LINE_NEIGHBOURS = 8;

/**
 * Where a stroke lies along a line, touching it, the pixels taken out with the line (`gone`) run wider
 * across it than the line's own. Down each column, a run longer than the usual run (the median, and two
 * pixels) is compared with the nearest column within LINE_NEIGHBOURS whose run over the same rows is
 * usual: what lies beyond that run (and a pixel for its blur) is the stroke. Along rows only (ruled
 * lines, squared paper's rows); runs over twice the usual are a column's line or a stroke across.
 */
function strokesBesideLines(gone: Uint8Array, w: number, h: number): Uint8Array {
  const out = new Uint8Array(w * h);
  const runs: Array<Array<[number, number]>> = [];
  const lengths: number[] = [];
  for (let x = 0; x < w; x++) {
    const col: Array<[number, number]> = [];
    let start = -1;
    for (let y = 0; y <= h; y++) {
      const on = y < h && gone[y * w + x] === 1;
      if (on && start < 0) start = y;
      if (!on && start >= 0) {
        col.push([start, y - 1]);
        lengths.push(y - start);
        start = -1;
      }
    }
    runs.push(col);
  }
  if (!lengths.length) return out;
  lengths.sort((a, b) => a - b);
  const usual = lengths[lengths.length >> 1];
  for (let x = 0; x < w; x++) {
    for (const run of runs[x]) {
      // A stroke beside a line widens its run by the stroke's thickness; a longer run is a line along the
      // column (squared paper) or a stroke crossing the line.
      const long = run[1] - run[0] + 1;
      if (long < usual + 2 || long > 2 * usual + 2) continue;
      let ref: [number, number] | undefined;
      for (let d = 1; d <= LINE_NEIGHBOURS && !ref; d++) {
        for (const xx of [x - d, x + d]) {
          if (xx >= 0 && xx < w && !ref) ref = runs[xx].find((r) => r[1] - r[0] <= usual && r[0] <= run[1] && r[1] >= run[0]);
        }
      }
      if (!ref) continue;
      for (let y = run[0]; y <= run[1]; y++) if (y < ref[0] - 1 || y > ref[1] + 1) out[y * w + x] = 1;
    }
  }
  return out;
}
