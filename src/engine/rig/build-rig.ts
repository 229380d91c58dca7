/**
 * buildRig: CharacterAnalysis + texture alpha → skeleton, silhouette mesh, skin weights and drawing
 * order. Everything in the returned Rig is in texture pixels, so the renderer can sample the texture
 * at any resolution by scaling.
 */
import type { CharacterAnalysis } from '../types.js';
import { dilate, distanceToOutside, keepLargeComponents, maskFromAlpha } from './mask.js';
import { buildMesh } from './mesh.js';
import { chainCode, chainLabels, clipCodes, cutSeams } from './seams.js';
import { BONES, BONE_COUNT, BONE_LAYER, RIG_JOINTS, boneLength, jointsFromKeypoints, type Point } from './skeleton.js';
import { MAX_INFLUENCES, limbThickness, pointWeights, regionField } from './weights.js';
import { LINE_BODY, capWeights, hasNeck, headRamp } from './drawings.js';
import { drawnInk } from './ink.js';
import { SKIRT_REGIONS, findSkirt, skirtWeights } from './skirt.js';

export interface Rig {
  version: 1;
  /** Texture size the coordinates below refer to. */
  textureWidth: number;
  textureHeight: number;
  /** RIG_JOINTS order, texture px. */
  joints: Array<{ name: string; x: number; y: number }>;
  /** BONES order (parents precede children). */
  bones: Array<{ name: string; parent: number; from: number; to: number }>;
  /** Flat [x0, y0, x1, y1, ...] texture px; also the texture coordinates. */
  vertices: number[];
  /** Flat vertex indices, three per triangle, already in back-to-front drawing order. */
  triangles: number[];
  /** Bone that dominates each triangle (drives its layer). */
  triangleBones: number[];
  /** Layer of each triangle (BONE_LAYER of its bone); drawing order is ascending layer. */
  triangleLayers: number[];
  /** MAX_INFLUENCES bone indices and weights per vertex (weights sum to 1). */
  influences: number;
  boneIndices: number[];
  boneWeights: number[];
  /**
   * Optional (older rigs lack it): per-pixel chain labels on the rig's working grid (base64 bytes;
   * 0 outside, 1 torso+head, 2/3 left/right arm, 4/5 left/right leg) and, per triangle in drawing
   * order, the chain a seam triangle is clipped to (0 = not clipped).
   */
  labels?: { width: number; height: number; data: string };
  triangleClip?: number[];
  /**
   * Optional (older rigs lack it; absent = 1): per bone (BONES order), its full length over its length
   * in the picture, >= 1. The retargeter draws a bone at its full length times the performer's
   * foreshortening. See fullLengths.
   */
  fullLength?: number[];
}

/** Rigging refused the input; the facade maps it to EngineError('INVALID_CHARACTER'). */
export class RigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'RigError';
  }
}

/** Bones of each limb (BONES order). */
const LIMB_BONES: Record<NonNullable<CharacterAnalysis['rigidLimbs']>[number], number[]> = {
  leftArm: [2, 3],
  rightArm: [4, 5],
  leftLeg: [6, 7],
  rightLeg: [8, 9],
};

/**
 * A limb the picture does not show (its joints guessed from the proportions, `rigidLimbs`) claims no
 * region: whatever its bones would have won goes to the torso, so that part of the body stays rigid with
 * it instead of swinging with the performer's limb (issue 10: the juice cup's body torn into "arms").
 */
function collapseRigidLimbs(scores: Float64Array[], rigid: CharacterAnalysis['rigidLimbs']): void {
  const torso = scores[0];
  for (const limb of rigid ?? []) {
    for (const b of LIMB_BONES[limb] ?? []) {
      const s = scores[b];
      for (let p = 0; p < s.length; p++) {
        if (s[p] < torso[p]) torso[p] = s[p];
        s[p] = Infinity;
      }
    }
  }
}

/**
 * A person's forearm (elbow to wrist) over the torso (shoulder centre to hip centre): 0.145 and 0.288
 * of stature in Drillis and Contini's segment proportions.
 */
export const FOREARM_OVER_TORSO = 0.5;
/** A forearm foreshortened in the picture is drawn at most this much longer than it is there. */
const MAX_FULL_LENGTH = 1.4;

/**
 * Per bone, its full length over its length in the picture. A photographed person's forearm can be
 * foreshortened in the picture (hands in pockets, on the hips, pointing at the camera): the retargeter
 * would then draw it that short on every frame, even with the performer's forearm in the image plane,
 * and the drawn arm ends well short of the performer's wrist (mimicmotion demo1, hands in her pockets:
 * forearms 0.38 and 0.40 of her torso). A forearm shorter than a person's (FOREARM_OVER_TORSO) is taken
 * as foreshortened and given that length. Only for a model pose on an upright figure (a photographed
 * person): a drawing's or an animal's proportions are its own. A limb the picture does not show
 * (rigidLimbs) rides with the torso and keeps 1.
 */
function fullLengths(analysis: CharacterAnalysis, joints: Point[]): number[] | undefined {
  if (analysis.poseMethod !== 'model' || analysis.figure === 'quadruped') return undefined;
  const torso = boneLength(joints, 0);
  const rigid = new Set(analysis.rigidLimbs ?? []);
  const full = BONES.map(() => 1);
  for (const [b, limb] of [
    [3, 'leftArm'],
    [5, 'rightArm'],
  ] as const) {
    const len = boneLength(joints, b);
    if (rigid.has(limb) || len < 1) continue;
    full[b] = Math.round(Math.min(MAX_FULL_LENGTH, Math.max(1, (FOREARM_OVER_TORSO * torso) / len)) * 1000) / 1000;
  }
  return full.some((f) => f > 1) ? full : undefined;
}

/**
 * Where each limb of a stick figure is joined to the body (working px, BONES order; null for the torso,
 * the head, the lower limbs and a limb joined at its pivot): the nearest pixel of its region that
 * borders the torso's, when that lies further from its pivot (shoulder or hip) than twice the limb's
 * half thickness. A stick figure's arm leaves its body's line below the shoulder, and its legs part
 * below the crotch: the strokes run together first and the torso wins them, so the limb is joined to
 * the torso only at the end of that shared stretch. Turning about its pivot, the limb's start swung
 * away from the torso's stub and the figure came apart at the shoulders and hips (seed 6 on tpl_dance:
 * 33 of 36 frames). The rig's joint, which the renderer turns the limb about, is moved there; the
 * regions and weights stay those of the old joints.
 */
function limbAttachments(labels: Uint8Array, w: number, joints: Point[], radius: number[]): Array<Point | null> {
  return BONES.map((def, b) => {
    if (b < 2 || def.parent !== 0) return null;
    const pivot = joints[def.from];
    const start = nearestJoined(labels, w, chainCode(b), pivot);
    return start && Math.hypot(start.x - pivot.x, start.y - pivot.y) > 2 * radius[b] ? start : null;
  });
}

/**
 * Centre of the pixel labelled `code` nearest to `p` that borders the torso's (a 4-neighbour labelled
 * 1), or null when none does: where the limb is joined to the body, not to another limb running
 * beside it (legs drawn together).
 */
function nearestJoined(labels: Uint8Array, w: number, code: number, p: Point): Point | null {
  let best: Point | null = null,
    bd = Infinity;
  for (let i = 0; i < labels.length; i++) {
    if (labels[i] !== code) continue;
    const x = i % w;
    const joined = (x > 0 && labels[i - 1] === 1) || (x < w - 1 && labels[i + 1] === 1) || labels[i - w] === 1 || labels[i + w] === 1;
    if (!joined) continue;
    const d = Math.hypot(x + 0.5 - p.x, Math.floor(i / w) + 0.5 - p.y);
    if (d < bd) [bd, best] = [d, { x: x + 0.5, y: Math.floor(i / w) + 0.5 }];
  }
  return best;
}

/**
 * Where a drawn arm raised against the head meets the body across its root (working px, BONES order;
 * null for other bones and arms): the pixels of the arm's region bordering the torso's whose distance
 * along the upper arm from its pivot is within the arm's half thickness of the nearest such pixel's
 * (the seam across the arm's start, not one along its side where it hangs against the body), when at
 * least half of them border pixels the head wins. Returned as that seam's centre and the radius round
 * it that covers the seam. Such an arm (generated dress seed 29) meets the head and the dress's
 * shoulder along one long seam, 50 working px, with its pivot beside the head; only the seam's end
 * within the pivot's keep radius blended, the rest was cut and opened like a hinge as the arm came
 * down (tpl_dance 9 of 36 frames in pieces, tpl_jacks 8 of 24), whichever point it turned about. With
 * any head pixel enough, char1's arm (5 of 76 seam pixels by the head) blended into a web at its armpit.
 */
function armRoots(
  labels: Uint8Array,
  w: number,
  joints: Point[],
  radius: number[],
  torso: Float64Array,
  head: Float64Array,
): Array<{ at: Point; reach: number } | null> {
  return BONES.map((def, b) => {
    if (b !== 2 && b !== 4) return null;
    const code = chainCode(b);
    const p = joints[def.from],
      e = joints[def.to];
    const len = Math.hypot(e.x - p.x, e.y - p.y);
    if (len < 1e-6) return null;
    const ux = (e.x - p.x) / len,
      uy = (e.y - p.y) / len;
    const seam: Point[] = [];
    const byHead: boolean[] = [];
    for (let i = 0; i < labels.length; i++) {
      if (labels[i] !== code) continue;
      const x = i % w;
      const body = [x > 0 ? i - 1 : -1, x < w - 1 ? i + 1 : -1, i - w, i + w].filter((j) => j >= 0 && j < labels.length && labels[j] === 1);
      if (!body.length) continue;
      seam.push({ x: x + 0.5, y: Math.floor(i / w) + 0.5 });
      byHead.push(body.some((j) => head[j] < torso[j]));
    }
    if (!seam.length) return null;
    const along = seam.map((q) => (q.x - p.x) * ux + (q.y - p.y) * uy);
    const s0 = Math.min(...along);
    const inRoot = seam.map((_, k) => along[k] <= s0 + radius[b]);
    if (byHead.filter((h, k) => h && inRoot[k]).length < 0.5 * inRoot.filter(Boolean).length) return null;
    const root = seam.filter((_, k) => inRoot[k]);
    const at = { x: root.reduce((a, q) => a + q.x, 0) / root.length, y: root.reduce((a, q) => a + q.y, 0) / root.length };
    const reach = Math.max(...root.map((q) => Math.hypot(q.x - at.x, q.y - at.y)));
    return { at, reach };
  });
}

/** The longest side of the grid the rig is computed on. */
const WORK_SIZE = 400;

export function buildRig(analysis: CharacterAnalysis, textureRgba: Uint8Array, w: number, h: number): Rig {
  if (textureRgba.length !== w * h * 4) throw new RigError('texture size does not match its dimensions');
  const { crop } = analysis;
  const sx = w / crop.width,
    sy = h / crop.height;
  const texJoints: Point[] = jointsFromKeypoints(analysis.body).map((p) => ({ x: (p.x - crop.x) * sx, y: (p.y - crop.y) * sy }));
  if (texJoints.some((p) => !Number.isFinite(p.x) || !Number.isFinite(p.y))) throw new RigError('body keypoints are not finite');
  const torsoTex = boneLength(texJoints, 0);
  if (torsoTex < 4) throw new RigError('no visible torso: shoulders and hips coincide');

  const scale = Math.min(1, WORK_SIZE / Math.max(w, h));
  const raw = maskFromAlpha(textureRgba, w, h, scale);
  const { mask, area } = keepLargeComponents(raw, 0.02);
  if (area < raw.w * raw.h * 0.01) throw new RigError('the character mask is empty or too small');
  const dil = dilate(mask, 2);
  const dilDist = distanceToOutside(dil);
  const joints = texJoints.map((p) => ({ x: p.x * scale, y: p.y * scale }));
  if (analysis.figure === 'quadruped') {
    quadrupedHead(mask, joints);
    for (const j of [1, 2]) texJoints[j] = { x: joints[j].x / scale, y: joints[j].y / scale };
  }
  const torsoLen = boneLength(joints, 0);

  // ~60 rows of interior points over the figure's long side: fine enough that seams cut along
  // triangle edges stay small, coarse enough to deform ~5k triangles at well over 60 fps.
  const gridSpacing = Math.max(4, Math.max(raw.w, raw.h) / 60);
  const mesh = buildMesh(dil, dilDist, 3, gridSpacing, dilate(mask, 3));
  const nv = mesh.xs.length;
  if (mesh.triangles.length / 3 < 16) throw new RigError('the character silhouette is too small to rig');

  // A drawing (joints from the silhouette's skeleton) takes the drawn-limb rules; people's rigs never do.
  const drawn = analysis.poseMethod === 'skeleton' && analysis.figure !== 'quadruped';
  // A drawing's strokes are borders between its parts even where its mask is solid (ink.ts).
  const drawing = drawn ? drawnInk(textureRgba, w, h, scale, dil, mask.data) : undefined;
  const depth = distanceToOutside(mask);
  const field = regionField(dil, depth, joints, analysis.figure === 'quadruped' ? joints[1].y : Infinity, drawn, drawing);
  collapseRigidLimbs(field.scores, analysis.rigidLimbs);
  const lineBody = drawn && limbThickness(mask, depth, joints[0], joints[1]) <= LINE_BODY * torsoLen;
  const boneIdx = new Int32Array(nv * MAX_INFLUENCES);
  const boneW = new Float32Array(nv * MAX_INFLUENCES);
  const band = Math.max(2, 0.12 * torsoLen);
  // Only with a model pose: a heuristic skeleton's hips on a drawing are too rough to judge cloth by.
  const skirt = analysis.poseMethod !== 'heuristic' && analysis.figure !== 'quadruped' ? findSkirt(mask, joints) : null;
  const inSkirt = new Uint8Array(nv);
  let unreachable = 0;
  for (let v = 0; v < nv; v++) {
    const win = pointWeights(field, dil, mesh.xs[v], mesh.ys[v], band, boneIdx, boneW, v * MAX_INFLUENCES);
    if (win < 0) unreachable++;
    else if (
      skirt &&
      SKIRT_REGIONS.has(win) &&
      skirtWeights(skirt, mesh.xs[v], mesh.ys[v], boneIdx, boneW, v * MAX_INFLUENCES, MAX_INFLUENCES)
    )
      inSkirt[v] = 1;
  }
  if (unreachable > nv * 0.5) throw new RigError('the skeleton does not lie on the character');
  if (drawn && !hasNeck(mask, joints[1], joints[2])) headRamp(mesh.xs, mesh.ys, joints[1], joints[2], boneIdx, boneW, MAX_INFLUENCES);
  const caps = field.caps ? capWeights(field.caps, mesh.xs, mesh.ys, boneIdx, boneW, MAX_INFLUENCES) : undefined;

  // Dominant bone per triangle = largest summed vertex weight; then stable sort by layer, bone.
  const nt = mesh.triangles.length / 3;
  const triBone = new Int32Array(nt);
  const acc = new Float32Array(BONE_COUNT);
  for (let t = 0; t < nt; t++) {
    acc.fill(0);
    for (let k = 0; k < 3; k++) {
      const v = mesh.triangles[t * 3 + k];
      for (let i = 0; i < MAX_INFLUENCES; i++) acc[boneIdx[v * MAX_INFLUENCES + i]] += boneW[v * MAX_INFLUENCES + i];
    }
    let best = 0;
    for (let b = 1; b < BONE_COUNT; b++) if (acc[b] > acc[best]) best = b;
    triBone[t] = best;
  }
  const labels = chainLabels(field.scores, dil.data);
  const attachments: Array<Point | null> = BONES.map(() => null);
  if (lineBody)
    limbAttachments(labels, dil.w, joints, field.radius).forEach((p, b) => {
      if (p) texJoints[BONES[b].from] = { x: p.x / scale, y: p.y / scale };
      // The seams stay smooth round a leg's attachment too (seams.ts nearJointOf). Not an arm's: round
      // seed 6's shoulders (a filled wedge between arm and body) the arms' triangles then held the
      // spine's texels, and it tore on tpl_jacks (0 -> 20 of 24 frames).
      if (p && (b === 6 || b === 8)) attachments[b] = p;
    });
  // A drawn arm on a body of its own (not a line) whose region meets the torso's only beyond twice its
  // half thickness from its shoulder: the skeleton put the shoulder at the top of a dress whose side the
  // arm lies against, and the arm's region was cut off where the arm as drawn leaves the body (drawnArms).
  // No seam pixel lay within the keep radius of the shoulder, the whole border was cut, and the arm came
  // off as a piece as soon as it turned (generated seed 45 on tpl_dance: 21 of 36 frames). The seams
  // stay smooth round where the arm's region meets the body too; the arm still turns about its shoulder.
  // A drawn arm raised against the head instead stays smooth across its whole root seam (armRoots).
  const attachRadius: Array<number | undefined> = BONES.map(() => undefined);
  if (drawn && !lineBody) {
    limbAttachments(labels, dil.w, joints, field.radius).forEach((p, b) => {
      if (p && (b === 2 || b === 4)) attachments[b] = p;
    });
    armRoots(labels, dil.w, joints, field.radius, field.scores[0], field.scores[1]).forEach((r, b) => {
      if (!r) return;
      attachments[b] = r.at;
      attachRadius[b] = r.reach;
    });
  }
  // Split torso/limb contact seams away from the shoulders and hips (see seams.ts). The radius
  // kept smooth around each joint: twice the limb's half-thickness, at least a fifth of the torso.
  const seamInput = {
    xs: mesh.xs,
    ys: mesh.ys,
    triangles: mesh.triangles,
    triBone,
    boneIdx,
    boneW,
    pivots: BONES.map((b) => joints[b.from]),
    keepRadius: field.radius.map((r) => Math.max(2 * r, 0.2 * torsoLen)),
    attachments,
    attachRadius,
    lineBody,
    skirt: skirt ? inSkirt : undefined,
    caps,
  };
  const seams = cutSeams(seamInput);
  const clip = clipCodes(seamInput, seams);
  const tb = seams.triBone;
  const order = Array.from({ length: tb.length }, (_, t) => t).sort(
    (a, b) => BONE_LAYER[tb[a]] * 16 + tb[a] - (BONE_LAYER[tb[b]] * 16 + tb[b]) || a - b,
  );

  const inv = 1 / scale;
  const round = (x: number): number => Math.round(x * 100) / 100;
  const vertices: number[] = [];
  for (let v = 0; v < seams.xs.length; v++) {
    vertices.push(round(Math.min(w, Math.max(0, seams.xs[v] * inv))), round(Math.min(h, Math.max(0, seams.ys[v] * inv))));
  }
  return {
    version: 1,
    textureWidth: w,
    textureHeight: h,
    joints: texJoints.map((p, i) => ({ name: RIG_JOINTS[i], x: round(p.x), y: round(p.y) })),
    bones: BONES.map((b) => ({ ...b })),
    vertices,
    triangles: order.flatMap((t) => [seams.triangles[t * 3], seams.triangles[t * 3 + 1], seams.triangles[t * 3 + 2]]),
    triangleBones: order.map((t) => tb[t]),
    triangleLayers: order.map((t) => BONE_LAYER[tb[t]]),
    influences: MAX_INFLUENCES,
    boneIndices: Array.from(seams.boneIdx),
    boneWeights: Array.from(seams.boneW, (x) => Math.round(x * 1000) / 1000),
    labels: { width: dil.w, height: dil.h, data: Buffer.from(labels).toString('base64') },
    triangleClip: order.map((t) => clip[t]),
    fullLength: fullLengths(analysis, texJoints),
  };
}

/**
 * A four-legged figure's neck and head (working px, moved in place). Its neck is the shoulders' centre,
 * on the belly line under the head, and its head joint the skeleton's end on the head's side (an ear's
 * tip): the head bone then ran from the belly up through the front half of the body, its seeds and its
 * region a diagonal wedge of body, so a nod creased the back (a notch behind the head, a hump when it
 * lifted). The neck is lifted to the middle of the body's height over the shoulders, where the head
 * turns, and the head joint is the centre of the figure beyond it (on the head's side, above the belly
 * line): the head's region is the part beyond the neck, and the torso's seed line runs up through the
 * body to the neck.
 */
function quadrupedHead(mask: { w: number; h: number; data: Uint8Array }, joints: Point[]): void {
  const root = joints[0],
    shoulders = joints[1];
  const side = Math.sign(shoulders.x - root.x) || 1;
  const cx = Math.max(0, Math.min(mask.w - 1, Math.round(shoulders.x)));
  const belly = Math.min(mask.h - 1, Math.round(shoulders.y));
  let top = -1;
  for (let y = 0; y <= belly && top < 0; y++) if (mask.data[y * mask.w + cx]) top = y;
  if (top < 0) return;
  const neck = { x: shoulders.x, y: (top + shoulders.y) / 2 };
  let n = 0,
    sx = 0,
    sy = 0;
  for (let y = 0; y < belly; y++) {
    for (let x = 0; x < mask.w; x++) {
      if (!mask.data[y * mask.w + x] || side * (x + 0.5 - neck.x) <= 0) continue;
      n++;
      sx += x + 0.5;
      sy += y + 0.5;
    }
  }
  if (n === 0) return;
  joints[1] = neck;
  joints[2] = { x: sx / n, y: sy / n };
}
