/**
 * Seams between the torso and a limb that lies against it (an arm hanging by the side, a hand in a
 * pocket). Where the two touch away from the shoulder/hip, the mesh joins them with triangles that
 * would stretch into a flap as soon as the limb swings out; likewise wherever two parts that are not
 * joined in the skeleton touch (a hand resting on a thigh). Those triangles are made rigid with
 * their own chain (torso+head, or one arm/leg), and their vertices are split per chain, so the
 * limb separates cleanly from the torso there, while near the joint itself weights still blend.
 */
import { BONES } from './skeleton.js';
import { MAX_INFLUENCES } from './weights.js';
import { SKIRT_PARTS } from './skirt.js';

/** Root bone of the limb chain `b` belongs to (upper arm or thigh), or -1 for torso and head. */
function limbRoot(b: number): number {
  if (b <= 1) return -1;
  return BONES[b].parent === 0 ? b : BONES[b].parent;
}

/** Torso and head form one chain (-1); each arm and leg is its own chain (its root bone). */
const chainOf = (b: number): number => (b <= 1 ? -1 : limbRoot(b));

export interface SeamInput {
  xs: Float64Array;
  ys: Float64Array;
  triangles: Uint32Array;
  triBone: Int32Array;
  boneIdx: Int32Array;
  boneW: Float32Array;
  /** Per bone: pivot position (working px) and blend radius around it that stays smooth. */
  pivots: Array<{ x: number; y: number }>;
  keepRadius: number[];
  /** Per bone, a second point round which the seam stays smooth (a stick figure's leg attachment), or null. */
  attachments?: Array<{ x: number; y: number } | null>;
  /**
   * Per bone, the radius kept smooth round its attachment when it is not keepRadius, or undefined:
   * a drawn arm's root seam (build-rig.ts armRoots), which round it the arm's copies of vertices also
   * keep the torso's weight (keepsTorso).
   */
  attachRadius?: Array<number | undefined>;
  /**
   * The body is a line (a stick figure's): round its arms' pivots a triangle of the torso, the head and
   * the upper arms is never cut (atShoulders).
   */
  lineBody?: boolean;
  /**
   * Vertices of a skirt zone (skirt.ts): a triangle touching one, made of torso and leg parts only,
   * is cloth stretching between them and is never cut.
   */
  skirt?: Uint8Array;
  /**
   * Per vertex, the upper arm + 1 of the drawn shoulder cap it lies in (drawings.ts, capWeights), 0
   * outside: a triangle all of whose vertices lie in one cap, made of the torso, head and that upper arm only,
   * bends between them as a fan and is neither cut nor clipped.
   */
  caps?: Uint8Array;
}

/** Whether triangle `t` (vertices `tv`, dominant bones `ds`) lies in one shoulder cap (SeamInput.caps). */
function inCap(m: SeamInput, tv: number[], ds: number[]): boolean {
  const caps = m.caps;
  if (!caps || tv.some((v) => v >= caps.length)) return false;
  const c = caps[tv[0]];
  return c > 0 && tv.every((v) => caps[v] === c) && ds.every((d) => d <= 1 || d === c - 1);
}

export interface SeamOutput {
  xs: Float64Array;
  ys: Float64Array;
  triangles: Uint32Array;
  boneIdx: Int32Array;
  boneW: Float32Array;
  /** Number of triangles made rigid. */
  cut: number;
  /** 1 for each triangle made rigid; input triangles first, then the extra per-chain copies. */
  cutTriangles: Uint8Array;
  /** Dominant bone per output triangle (extras: a bone of the chain they draw). */
  triBone: Int32Array;
}

/**
 * Whether (x, y) lies within limb `limb`'s keep radius of its pivot, or of its attachment when it has
 * one: there torso and limb blend and are neither cut apart nor clipped. A stick figure's hip (the
 * skeleton's, spread sideways at the root's height, off its strokes) lies 20-30 texture px from
 * where its leg's region meets the torso's, which the leg turns about (build-rig.ts limbAttachments),
 * and the seam between them there was cut: the leg came off at the crotch as it turned.
 */
function nearJointOf(m: SeamInput, limb: number, x: number, y: number): boolean {
  if (limb < 0) return false;
  const p = m.pivots[limb],
    a = m.attachments?.[limb];
  const ar = m.attachRadius?.[limb] ?? m.keepRadius[limb];
  return Math.hypot(x - p.x, y - p.y) <= m.keepRadius[limb] || (!!a && Math.hypot(x - a.x, y - a.y) <= ar);
}

/**
 * Whether the copy of vertex `v` for chain `chain` keeps the torso's weight besides its own chain's:
 * for a limb's copy of a vertex within that limb's keep radius of its pivot. A triangle there that
 * mixes torso and limb only is never cut and blends; one that also touches a third chain is cut (the
 * head's round over a stick figure's shoulder, the other leg where legs are drawn together from one
 * point) and its limb copy was made rigid with the limb, so the limb's first pixels no longer
 * stretched back to the torso and the limb came off at its joint as soon as it turned (generated stick
 * figures: seed 70's arm drawn level, hanging on tpl_wave, 24 of 24 frames; seed 37's kicking thigh at
 * the crotch). Per vertex, not per triangle: every triangle of the chain uses the same copy of a
 * vertex, so no crack opens inside the limb.
 */
function keepsTorso(m: SeamInput, chain: number, v: number): boolean {
  if (chain < 0) return false;
  const p = m.pivots[chain],
    a = m.attachments?.[chain],
    ar = m.attachRadius?.[chain];
  if (a && ar !== undefined && Math.hypot(m.xs[v] - a.x, m.ys[v] - a.y) <= ar) return true;
  return Math.hypot(m.xs[v] - p.x, m.ys[v] - p.y) <= m.keepRadius[chain];
}

/**
 * Whether (x, y) lies within a leg's keep radius of that leg's attachment (a stick figure's, where the
 * leg's region meets the torso's). A triangle there made of the torso and the legs only is never cut:
 * where a stick figure's legs part, the triangles touch the torso and both legs, and cut, the vertex
 * between the legs was split; the torso's copy, rigid with the torso, and the leg's copy drew the
 * triangles on either side of the leg's top, and a crack opened along it as soon as the legs moved
 * (seed 44 on tpl_jacks: 20 of 24 frames; seeds 22, 37, 66, 68, 81 on tpl_kick: 4-8 of 24). Blended
 * instead, the crotch stretches between the legs like a drawn crotch.
 */
function atCrotch(m: SeamInput, x: number, y: number): boolean {
  for (const b of [6, 8]) {
    const a = m.attachments?.[b];
    if (a && Math.hypot(x - a.x, y - a.y) <= m.keepRadius[b]) return true;
  }
  return false;
}

/**
 * Whether a triangle of dominant bones `ds` at (x, y) is made of the torso, the head and one arm only,
 * within that arm's root seam (SeamInput.attachRadius): a drawn arm raised against the head meets the
 * head there as well as the body, and cut, that stretch of the seam opened as the arm came down.
 */
function atArmRoot(m: SeamInput, ds: number[], x: number, y: number): boolean {
  const arms = new Set(ds.filter((d) => d > 1).map(limbRoot));
  if (arms.size !== 1 || !ds.every((d) => d <= 1 || limbRoot(d) === 2 || limbRoot(d) === 4)) return false;
  const [arm] = arms;
  const a = m.attachments?.[arm],
    r = m.attachRadius?.[arm];
  return !!a && r !== undefined && Math.hypot(x - a.x, y - a.y) <= r;
}

/**
 * Whether (x, y) lies within an arm's keep radius of its pivot on a stick figure (SeamInput.lineBody).
 * There the arms leave the body's line right under the head's round: a triangle touching the head and
 * an upper arm, which the skeleton does not join, was cut as a limb against a foreign part, its arm copy
 * rigid with the arm and its head copy with the head, and a crack a pixel wide opened along the top of
 * the arm's first pixels as it swung down (generated seed 70 on tpl_kick: 2 of 24 frames in pieces).
 * Made of the torso, the head and the upper arms only, such a triangle blends between them like the
 * crotch between the legs (atCrotch).
 */
function atShoulders(m: SeamInput, x: number, y: number): boolean {
  return !!m.lineBody && (nearJointOf(m, 2, x, y) || nearJointOf(m, 4, x, y));
}

export function cutSeams(m: SeamInput): SeamOutput {
  const nt = m.triangles.length / 3;
  const dominant = (v: number): number => {
    let best = 0,
      bw = -1;
    for (let k = 0; k < MAX_INFLUENCES; k++) {
      const w = m.boneW[v * MAX_INFLUENCES + k];
      if (w > bw) {
        bw = w;
        best = m.boneIdx[v * MAX_INFLUENCES + k];
      }
    }
    return best;
  };
  // Triangles mixing torso and a limb (by vertex dominant bones or by weights), far from that limb's joint.
  const cutBones = new Map<number, Set<number>>();
  const cutTriangles = new Uint8Array(nt);
  // Per cut triangle, the other chains whose texels it holds, each with a bone of that chain.
  const extraChains = new Map<number, Array<[number, number]>>();
  let cut = 0;
  for (let t = 0; t < nt; t++) {
    let torso = false,
      limb = -1;
    for (let k = 0; k < 3; k++) {
      const v = m.triangles[t * 3 + k];
      const d = dominant(v);
      if (d === 0) torso = true;
      else if (limbRoot(d) >= 0) limb = limbRoot(d);
      for (let i = 0; i < MAX_INFLUENCES; i++) {
        if (m.boneW[v * MAX_INFLUENCES + i] <= 0.02) continue;
        const b = m.boneIdx[v * MAX_INFLUENCES + i];
        if (b === 0) torso = true;
        else if (limbRoot(b) >= 0) limb = limbRoot(b);
      }
    }
    // Limb against a non-adjacent limb (a hand on a thigh): always cut.
    const d0 = dominant(m.triangles[t * 3]),
      d1 = dominant(m.triangles[t * 3 + 1]),
      d2 = dominant(m.triangles[t * 3 + 2]);
    const adjacent = (a: number, b: number): boolean => a === b || BONES[a].parent === b || BONES[b].parent === a;
    const foreign = !adjacent(d0, d1) || !adjacent(d1, d2) || !adjacent(d0, d2);
    if (!foreign && (!torso || limb < 0)) continue;
    const tv = [m.triangles[t * 3], m.triangles[t * 3 + 1], m.triangles[t * 3 + 2]];
    if (m.skirt && tv.some((v) => m.skirt![v]) && [d0, d1, d2].every((d) => SKIRT_PARTS.has(d))) continue;
    if (inCap(m, tv, [d0, d1, d2])) continue;
    const cx = (m.xs[m.triangles[t * 3]] + m.xs[m.triangles[t * 3 + 1]] + m.xs[m.triangles[t * 3 + 2]]) / 3;
    const cy = (m.ys[m.triangles[t * 3]] + m.ys[m.triangles[t * 3 + 1]] + m.ys[m.triangles[t * 3 + 2]]) / 3;
    if (!foreign && nearJointOf(m, limb, cx, cy)) continue;
    if (foreign && [d0, d1, d2].every((d) => d === 0 || d === 6 || d === 8) && atCrotch(m, cx, cy)) continue;
    if (foreign && atArmRoot(m, [d0, d1, d2], cx, cy)) continue;
    if (foreign && [d0, d1, d2].every((d) => d <= 2 || d === 4) && atShoulders(m, cx, cy)) continue;
    cut++;
    cutTriangles[t] = 1;
    // The triangle is drawn once per chain among its vertices, each copy clipped to that chain's
    // texels, so every texel moves with its own part and none is lost at the seam.
    const chains = new Map<number, number>([[chainOf(m.triBone[t]), m.triBone[t]]]);
    for (const d of [d0, d1, d2]) if (!chains.has(chainOf(d))) chains.set(chainOf(d), d);
    extraChains.set(
      t,
      [...chains.entries()].filter(([c]) => c !== chainOf(m.triBone[t])),
    );
    for (let k = 0; k < 3; k++) {
      const v = m.triangles[t * 3 + k];
      let s = cutBones.get(v);
      if (!s) cutBones.set(v, (s = new Set()));
      for (const c of chains.keys()) s.add(c);
    }
  }
  // Every triangle of chain C touching a split vertex uses that vertex's C copy (its weights
  // restricted to C's bones), so no crack opens inside one chain and elbows and knees still blend.
  // A limb's copy of a vertex within that limb's keep radius of its pivot also keeps the torso's
  // weight (keepsTorso): there torso and limb blend, and a triangle is cut only for touching a third
  // chain.
  const copies = new Map<number, number>();
  const xs: number[] = Array.from(m.xs),
    ys: number[] = Array.from(m.ys);
  const bi: number[] = Array.from(m.boneIdx),
    bw: number[] = Array.from(m.boneW);
  const tris: number[] = Array.from(m.triangles);
  const triBone: number[] = Array.from(m.triBone);
  const cutOut: number[] = Array.from(cutTriangles);
  const place = (t: number, slot: number, b: number): void => {
    const chain = chainOf(b);
    for (let k = 0; k < 3; k++) {
      const v = m.triangles[t * 3 + k];
      if (!cutBones.get(v)?.has(chain)) continue;
      const torsoToo = keepsTorso(m, chain, v);
      const keeps = (ob: number): boolean => chainOf(ob) === chain || (torsoToo && ob === 0);
      const key = v * 16 + chain + 1;
      let c = copies.get(key);
      if (c === undefined) {
        c = xs.length;
        copies.set(key, c);
        xs.push(m.xs[v]);
        ys.push(m.ys[v]);
        let sum = 0;
        for (let i = 0; i < MAX_INFLUENCES; i++) {
          if (keeps(m.boneIdx[v * MAX_INFLUENCES + i])) sum += m.boneW[v * MAX_INFLUENCES + i];
        }
        for (let i = 0; i < MAX_INFLUENCES; i++) {
          const ob = m.boneIdx[v * MAX_INFLUENCES + i],
            ow = m.boneW[v * MAX_INFLUENCES + i];
          if (sum > 1e-3) {
            bi.push(keeps(ob) ? ob : 0);
            bw.push(keeps(ob) ? ow / sum : 0);
          } else {
            bi.push(i === 0 ? b : 0);
            bw.push(i === 0 ? 1 : 0);
          }
        }
      }
      tris[slot * 3 + k] = c;
    }
  };
  for (let t = 0; t < nt; t++) {
    place(t, t, m.triBone[t]);
    for (const [, b] of extraChains.get(t) ?? []) {
      const slot = tris.length / 3;
      tris.push(m.triangles[t * 3], m.triangles[t * 3 + 1], m.triangles[t * 3 + 2]);
      triBone.push(b);
      cutOut.push(1);
      place(t, slot, b);
    }
  }
  return {
    xs: Float64Array.from(xs),
    ys: Float64Array.from(ys),
    triangles: Uint32Array.from(tris),
    boneIdx: Int32Array.from(bi),
    boneW: Float32Array.from(bw),
    cut,
    cutTriangles: Uint8Array.from(cutOut),
    triBone: Int32Array.from(triBone),
  };
}

/**
 * Chain label per working pixel: 0 outside the mask, 1 torso+head, 2 left arm, 3 right arm, 4 left
 * leg, 5 right leg (chainCode). The renderer clips seam triangles to
 * their own chain's pixels, so a cut follows the region border at pixel precision instead of the
 * triangle edges' sawtooth.
 */
export function chainCode(bone: number): number {
  const c = chainOf(bone);
  return c < 0 ? 1 : 2 + (c - 2) / 2;
}

export function chainLabels(scores: Float64Array[], inside: Uint8Array): Uint8Array {
  const out = new Uint8Array(inside.length);
  for (let i = 0; i < inside.length; i++) {
    if (!inside[i]) continue;
    let win = 0;
    for (let b = 1; b < scores.length; b++) if (scores[b][i] < scores[win][i]) win = b;
    if (Number.isFinite(scores[win][i])) out[i] = chainCode(win);
  }
  return out;
}

/**
 * Per triangle: the chain code the renderer clips it to, or 0. Cut triangles are always clipped;
 * so is every triangle away from the shoulders and hips, since near the outline a torso triangle
 * can hold a few texels of an arm (and the reverse) that would otherwise travel with the wrong part
 * as a sawtooth fringe. Triangles near a limb's root stay unclipped: there weights blend and both
 * sides move together, so clipping would only open cracks.
 */
export function clipCodes(m: SeamInput, seams: SeamOutput): Uint8Array {
  const nt = seams.triBone.length;
  const out = new Uint8Array(nt);
  const { xs, ys, triangles } = seams;
  for (let t = 0; t < nt; t++) {
    if (!seams.cutTriangles[t]) {
      // Skirt cloth carries torso and leg texels on purpose and blends between them: never clipped.
      const sk = m.skirt;
      if (sk && SKIRT_PARTS.has(seams.triBone[t]) && [0, 1, 2].some((k) => triangles[t * 3 + k] < sk.length && sk[triangles[t * 3 + k]]))
        continue;
      if (
        m.caps &&
        inCap(
          m,
          [0, 1, 2].map((k) => triangles[t * 3 + k]),
          [seams.triBone[t]],
        )
      )
        continue;
      const cx = (xs[triangles[t * 3]] + xs[triangles[t * 3 + 1]] + xs[triangles[t * 3 + 2]]) / 3;
      const cy = (ys[triangles[t * 3]] + ys[triangles[t * 3 + 1]] + ys[triangles[t * 3 + 2]]) / 3;
      let nearJoint = false;
      for (const root of [2, 4, 6, 8]) if (nearJointOf(m, root, cx, cy)) nearJoint = true;
      if (nearJoint) continue;
    }
    out[t] = chainCode(seams.triBone[t]);
  }
  return out;
}
