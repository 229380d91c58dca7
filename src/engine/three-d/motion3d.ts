/**
 * Lifted performer points → joint rotations of an export skeleton, with root motion, ground
 * contact and planted feet.
 *
 * Each driven joint gets a target world orientation: the torso from the hip and shoulder lines, the
 * head from ears and nose, each limb bone from its direction plus the plane it bends in (so elbows
 * and knees keep their twist), feet flat on the ground facing the hips' way. Undriven joints
 * (hands, fingers, face, twist and IK helpers) keep their rest pose relative to their parent. The
 * skeleton's own rest offsets are reused in every frame, so its bone lengths are constant.
 *
 * Feet: a foot within 5 cm of the ground that moves slower than 0.35 m/s is planted; while planted
 * its position is held and the leg reaches it by two-bone IK, then blends back over a few frames.
 */
import { HEAD, NECK, PELVIS, forwardOf, type LiftedTrack } from './lift.js';
import {
  IDENTITY,
  add,
  cross,
  dot,
  frameFrom,
  length,
  lerp3,
  normalize,
  qconj,
  qfromTo,
  qmul,
  qrotate,
  qslerp,
  scale,
  sub,
  type Quat,
  type Vec3,
} from './math3d.js';
import { restOffset, type Skeleton } from './skeletons.js';

export interface SkeletalClip {
  skeleton: Skeleton;
  fps: number;
  frameCount: number;
  /** Local rotation per frame per joint, [x, y, z, w], frame-major. */
  rotations: Float32Array;
  /** Local translation per frame per joint (rest offsets except the root-motion and hips joints). */
  translations: Float32Array;
  /** World positions per frame per joint (for scores and checks). */
  world: Float32Array;
  /** Per frame and foot (left, right): whether the foot was planted. */
  planted: Array<[boolean, boolean]>;
}

const CONTACT_HEIGHT = 0.05;
const CONTACT_SPEED = 0.35;
const RELEASE_FRAMES = 3;

const LIMB = {
  arm: { l: [5, 7, 9], r: [6, 8, 10] },
  leg: { l: [11, 13, 15], r: [12, 14, 16] },
} as const;

/** Rest bend axis of a straight limb: elbows bend forward (+Z), knees backward (-Z). */
function restBendAxis(dir: Vec3, limb: 'arm' | 'leg'): Vec3 {
  const axis = cross(dir, limb === 'arm' ? [0, 0, 1] : [0, 0, -1]);
  return normalize(axis, [1, 0, 0]);
}

interface Ctx {
  sk: Skeleton;
  pts: Vec3[];
  toWorld: (v: Vec3) => Vec3;
  globals: Quat[];
  hips: Quat;
  chest: Quat;
}

function childOf(sk: Skeleton, i: number): number {
  return sk.joints.findIndex((j) => j.parent === i);
}

function targetGlobal(c: Ctx, i: number, parentG: Quat): Quat {
  const j = c.sk.joints[i];
  const role = j.role;
  if (!role || role.kind === 'root') return parentG;
  const p = c.pts;
  switch (role.kind) {
    case 'hips':
      return c.hips;
    case 'spine':
      return qslerp(c.hips, c.chest, role.t);
    case 'neck': {
      const up = sub(p[HEAD], p[NECK]);
      const side = sub(p[5], p[6]);
      return qslerp(c.chest, frameFrom(up, side), 0.5);
    }
    case 'head': {
      const side = sub(p[3], p[4]);
      const fwd = sub(p[0], scale(add(p[3], p[4]), 0.5));
      const up = cross(fwd, side);
      if (length(side) < 1e-6 || length(fwd) < 1e-6) return parentG;
      return frameFrom(up, side);
    }
    case 'upper':
    case 'lower': {
      const [a, b, cIdx] = LIMB[role.limb][role.side];
      const d1 = normalize(sub(p[b], p[a]));
      const d2 = normalize(sub(p[cIdx], p[b]));
      const child = childOf(c.sk, i);
      const restDir = normalize(restOffset(c.sk, child));
      const cur = role.kind === 'upper' ? d1 : d2;
      const swing = qmul(qfromTo(normalize(qrotate(parentG, restDir)), cur), parentG);
      const bend = cross(d1, d2);
      const w = Math.min(1, Math.max(0, (length(bend) - 0.05) / 0.2));
      if (w === 0) return swing;
      const n0 = restBendAxis(restDir, role.limb);
      const full = qmul(frameFrom(cur, normalize(bend)), qconj(frameFrom(restDir, n0)));
      return qslerp(swing, full, w);
    }
    case 'foot': {
      const f = forwardOf(p);
      return qfromTo([0, 0, 1], f);
    }
  }
}

/** Two-bone IK: new world rotations of thigh and calf so the ankle reaches `target`. */
function reach(hip: Vec3, knee: Vec3, ankle: Vec3, target: Vec3, gThigh: Quat, gCalf: Quat): [Quat, Quat] {
  const a = length(sub(knee, hip));
  const b = length(sub(ankle, knee));
  const toT = sub(target, hip);
  const d = Math.min(a + b - 1e-4, Math.max(Math.abs(a - b) + 1e-4, length(toT)));
  const u = normalize(toT);
  let pole = sub(sub(knee, hip), scale(u, dot(sub(knee, hip), u)));
  if (length(pole) < 1e-6) pole = [0, 0, 1];
  const pn = normalize(pole);
  const cosA = (a * a + d * d - b * b) / (2 * a * d);
  const sinA = Math.sqrt(Math.max(0, 1 - cosA * cosA));
  const newKnee = add(hip, add(scale(u, a * cosA), scale(pn, a * sinA)));
  const r1 = qfromTo(normalize(sub(knee, hip)), normalize(sub(newKnee, hip)));
  const calfDir = qrotate(r1, normalize(sub(ankle, knee)));
  const r2 = qfromTo(normalize(calfDir), normalize(sub(add(hip, scale(u, d)), newKnee)));
  return [qmul(r1, gThigh), qmul(r2, qmul(r1, gCalf))];
}

function forwardKinematics(sk: Skeleton, rootPos: Vec3, globals: Quat[], out: Vec3[]): void {
  for (let i = 0; i < sk.joints.length; i++) {
    const j = sk.joints[i];
    out[i] = j.parent < 0 ? rootPos : add(out[j.parent], qrotate(globals[j.parent], restOffset(sk, i)));
  }
}

export interface RetargetOptions {
  /** Apply the planted-foot correction (on by default). */
  plantFeet?: boolean;
}

export function retarget(lifted: LiftedTrack, sk: Skeleton, opts: RetargetOptions = {}): SkeletalClip {
  const n = sk.joints.length;
  const frames = lifted.frames.length;
  // Metres of this skeleton per pixel of the track: the performer is scaled to the skeleton's legs and torso.
  const rigLen = (i: number, k: number) => length(sub(sk.joints[k].rest, sk.joints[i].rest));
  const [lf] = sk.feet;
  const thigh = sk.joints[sk.joints[lf].parent].parent;
  const rigLegs = rigLen(thigh, sk.joints[lf].parent) + rigLen(sk.joints[lf].parent, lf);
  const mPerPx = rigLegs / (lifted.lengths.thigh + lifted.lengths.shin);
  const hipsRest = sk.joints[sk.hipsJoint].rest;
  const first = lifted.frames[0]?.[PELVIS] ?? [0, 0, 0];

  // Pelvis height and the ground correction move the pelvis and what hangs from it, never a
  // ground-level root or the IK helpers beside the pelvis.
  const underHips = sk.joints.map((_, i) => {
    let a = i;
    while (a >= 0 && a !== sk.hipsJoint) a = sk.joints[a].parent;
    return a === sk.hipsJoint;
  });
  const globalsAll: Quat[][] = [];
  const worldAll: Vec3[][] = [];
  const rootAll: Vec3[] = [];
  for (let t = 0; t < frames; t++) {
    const pts = lifted.frames[t];
    const hipSide = sub(pts[11], pts[12]);
    const up = sub(pts[NECK], pts[PELVIS]);
    const ctx: Ctx = { sk, pts, toWorld: (v) => v, globals: [], hips: frameFrom(up, hipSide), chest: frameFrom(up, sub(pts[5], pts[6])) };
    const g: Quat[] = new Array(n);
    for (let i = 0; i < n; i++) g[i] = targetGlobal(ctx, i, sk.joints[i].parent < 0 ? IDENTITY : g[sk.joints[i].parent]);
    // The pelvis follows the performer's pelvis, relative to the first frame, on the skeleton's scale.
    const pelvis = add(hipsRest, scale(sub(pts[PELVIS], first), mPerPx));
    const world: Vec3[] = new Array(n);
    const rootPos = sk.rootMotionJoint === sk.hipsJoint ? pelvis : ([pelvis[0], 0, pelvis[2]] as Vec3);
    // Skeletons whose root sits under the pelvis: place the root so the pelvis lands where it should.
    forwardKinematics(sk, rootPos, g, world);
    if (sk.rootMotionJoint !== sk.hipsJoint) {
      const dy = pelvis[1] - world[sk.hipsJoint][1];
      world.forEach((w, i) => {
        if (underHips[i]) world[i] = [w[0], w[1] + dy, w[2]];
      });
    }
    globalsAll.push(g);
    worldAll.push(world);
    rootAll.push(rootPos);
  }

  // Ground: the lower foot rests at its rest height in most frames (jumps stay in the air).
  const footRest = Math.min(sk.joints[sk.feet[0]].rest[1], sk.joints[sk.feet[1]].rest[1]);
  const lows = worldAll.map((w) => Math.min(w[sk.feet[0]][1], w[sk.feet[1]][1])).sort((a, b) => a - b);
  const ground = lows.length ? lows[Math.floor(lows.length * 0.1)] - footRest : 0;
  for (const w of worldAll) for (let i = 0; i < n; i++) if (underHips[i]) w[i] = [w[i][0], w[i][1] - ground, w[i][2]];

  const planted: Array<[boolean, boolean]> = Array.from({ length: frames }, () => [false, false]);
  if (opts.plantFeet !== false && frames > 1) {
    const dt = 1 / lifted.fps;
    sk.feet.forEach((foot, side) => {
      const calf = sk.joints[foot].parent;
      const thighJ = sk.joints[calf].parent;
      let anchor: Vec3 | null = null;
      let release = 0;
      let lastAnchor: Vec3 | null = null;
      for (let t = 0; t < frames; t++) {
        const w = worldAll[t];
        const prev = worldAll[Math.max(0, t - 1)][foot];
        const next = worldAll[Math.min(frames - 1, t + 1)][foot];
        const speed = Math.hypot(next[0] - prev[0], next[2] - prev[2]) / (dt * Math.max(1, Math.min(t, 1) + Math.min(frames - 1 - t, 1)));
        const contact = w[foot][1] - footRest < CONTACT_HEIGHT && speed < CONTACT_SPEED;
        let target: Vec3 | null = null;
        if (contact) {
          anchor ??= [w[foot][0], footRest, w[foot][2]];
          target = anchor;
          planted[t][side] = true;
        } else {
          if (anchor) {
            lastAnchor = anchor;
            release = RELEASE_FRAMES;
          }
          anchor = null;
          if (release > 0 && lastAnchor) target = lerp3(lastAnchor, w[foot], 1 - release / (RELEASE_FRAMES + 1));
          release = Math.max(0, release - 1);
        }
        if (!target) continue;
        const g = globalsAll[t];
        const [gt, gc] = reach(w[thighJ], w[calf], w[foot], target, g[thighJ], g[calf]);
        g[thighJ] = gt;
        g[calf] = gc;
        // Re-run FK below the thigh only.
        for (let i = thighJ + 1; i < n; i++) {
          let a = sk.joints[i].parent;
          while (a > thighJ) a = sk.joints[a].parent;
          if (a !== thighJ) continue;
          const pj = sk.joints[i].parent;
          if (i !== calf && i !== foot && sk.joints[i].role === undefined) g[i] = qmul(g[pj], IDENTITY);
          w[i] = add(w[pj], qrotate(g[pj], restOffset(sk, i)));
        }
      }
    });
  }

  const rotations = new Float32Array(frames * n * 4);
  const translations = new Float32Array(frames * n * 3);
  const world = new Float32Array(frames * n * 3);
  for (let t = 0; t < frames; t++) {
    const g = globalsAll[t];
    const w = worldAll[t];
    for (let i = 0; i < n; i++) {
      const pj = sk.joints[i].parent;
      const local = pj < 0 ? g[i] : qmul(qconj(g[pj]), g[i]);
      rotations.set(local, (t * n + i) * 4);
      let tr = restOffset(sk, i);
      if (i === sk.rootMotionJoint && pj < 0) tr = sk.rootMotionJoint === sk.hipsJoint ? w[i] : [rootAll[t][0], 0, rootAll[t][2]];
      else if (i === sk.hipsJoint) tr = qrotate(qconj(g[pj]), sub(w[i], w[pj]));
      translations.set(tr, (t * n + i) * 3);
      world.set(w[i], (t * n + i) * 3);
    }
  }
  return { skeleton: sk, fps: lifted.fps, frameCount: frames, rotations, translations, world, planted };
}
