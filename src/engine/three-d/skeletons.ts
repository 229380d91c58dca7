/**
 * The two export skeletons (MetaHuman-named and Mixamo-named) and the joint sets shared by
 * Characters and Motions. Coordinates: glTF convention, Y up, metres, the figure faces +Z and its
 * left side is +X. Every joint's rest rotation is identity; the rest pose lives in the joints'
 * translations (MetaHuman: A-pose, arms 45 degrees down; Mixamo: T-pose), which is what both tools
 * expect when they import a skeleton by name.
 *
 * Joint counts follow interface-v1 section 2.6: body 86, expression 119, full 441 (docs/engine-3d.md
 * lists every joint). The Mixamo skeleton is Mixamo's standard skeleton without its `_End` leaves.
 */
import { add, normalize, scale, sub, type Vec3 } from './math3d.js';

export const JOINT_SETS = ['body', 'expression', 'full'] as const;
export type JointSet = (typeof JOINT_SETS)[number];

/** What drives a joint from the lifted performer skeleton (motion3d.ts). Undriven joints keep their rest pose relative to their parent. */
export type JointRole =
  | { kind: 'root' }
  | { kind: 'hips' }
  | { kind: 'spine'; t: number }
  | { kind: 'neck' }
  | { kind: 'head' }
  | { kind: 'upper'; side: 'l' | 'r'; limb: 'arm' | 'leg' }
  | { kind: 'lower'; side: 'l' | 'r'; limb: 'arm' | 'leg' }
  | { kind: 'foot'; side: 'l' | 'r' };

export interface Joint {
  name: string;
  /** Index of the parent in the same skeleton, -1 for the root. Parents come before children. */
  parent: number;
  /** Rest position in the skeleton's space (metres). */
  rest: Vec3;
  role?: JointRole;
  /** A face control: its offset from the parent is animated (face-controls.ts), so it is not a bone of constant length. */
  control?: boolean;
}

export interface Skeleton {
  id: 'metahuman' | 'mixamo';
  joints: Joint[];
  /** The joint that carries root motion (horizontal) and the one that carries the pelvis height. */
  rootMotionJoint: number;
  hipsJoint: number;
  /** Ankle joints (for ground contact), left then right. */
  feet: [number, number];
  /** Joints whose rest positions correspond to COCO-17 keypoints 5..16 (for reprojection scores). */
  cocoJoints: Record<number, number>;
}

class Builder {
  readonly joints: Joint[] = [];
  private readonly index = new Map<string, number>();
  add(name: string, parent: string | null, rest: Vec3, role?: JointRole): void {
    if (this.index.has(name)) throw new Error(`duplicate joint ${name}`);
    const p = parent === null ? -1 : this.index.get(parent);
    if (p === undefined) throw new Error(`unknown parent ${parent}`);
    this.index.set(name, this.joints.length);
    this.joints.push({ name, parent: p, rest, role });
  }
  at(name: string): Vec3 {
    const i = this.index.get(name);
    if (i === undefined) throw new Error(`unknown joint ${name}`);
    return this.joints[i].rest;
  }
  idx(name: string): number {
    const i = this.index.get(name);
    if (i === undefined) throw new Error(`unknown joint ${name}`);
    return i;
  }
}

const SIDES = [
  { s: 'l' as const, sign: 1, cap: 'Left' },
  { s: 'r' as const, sign: -1, cap: 'Right' },
];
const mirror = (v: Vec3, sign: number): Vec3 => [v[0] * sign, v[1], v[2]];

/** Finger chains laid along the hand's direction, spread across its palm (shared by both skeletons). */
function fingerLayout(hand: Vec3, dir: Vec3, sign: number): Array<{ finger: string; base: Vec3; step: Vec3 }> {
  // Across the palm: forward (+Z) for both hands, so index sits in front and pinky behind.
  const across: Vec3 = [0, 0, 1];
  const out: Array<{ finger: string; base: Vec3; step: Vec3 }> = [];
  const spread: Array<[string, number]> = [
    ['index', 0.03],
    ['middle', 0.01],
    ['ring', -0.01],
    ['pinky', -0.03],
  ];
  for (const [finger, z] of spread)
    out.push({ finger, base: add(add(hand, scale(dir, 0.03)), scale(across, z)), step: scale(dir, finger === 'pinky' ? 0.02 : 0.03) });
  const down: Vec3 = [0, -0.3, 0];
  out.push({
    finger: 'thumb',
    base: add(add(hand, scale(dir, 0.02)), [0, -0.01, 0.04]),
    step: normalize(add(add(scale(dir, 0.6), [0, 0, 0.6 * 1]), down)).map((c) => c * 0.03) as Vec3,
  });
  void sign;
  return out;
}

function metahumanBody(b: Builder): void {
  b.add('root', null, [0, 0, 0], { kind: 'root' });
  b.add('pelvis', 'root', [0, 0.98, 0], { kind: 'hips' });
  const spineY = [1.03, 1.1, 1.18, 1.27, 1.36];
  spineY.forEach((y, i) =>
    b.add(`spine_0${i + 1}`, i === 0 ? 'pelvis' : `spine_0${i}`, [0, y, 0], { kind: 'spine', t: (i + 1) / spineY.length }),
  );
  b.add('neck_01', 'spine_05', [0, 1.47, 0], { kind: 'neck' });
  b.add('neck_02', 'neck_01', [0, 1.52, 0.005]);
  b.add('head', 'neck_02', [0, 1.58, 0.01], { kind: 'head' });
  const down = Math.SQRT1_2;
  for (const { s, sign } of SIDES) {
    b.add(`clavicle_${s}`, 'spine_05', [0.03 * sign, 1.42, 0.02]);
    const shoulder: Vec3 = [0.17 * sign, 1.42, -0.01];
    const dir: Vec3 = [down * sign, -down, 0];
    const elbow = add(shoulder, scale(dir, 0.28));
    const wrist = add(elbow, scale(dir, 0.26));
    b.add(`upperarm_${s}`, `clavicle_${s}`, shoulder, { kind: 'upper', side: s, limb: 'arm' });
    b.add(`lowerarm_${s}`, `upperarm_${s}`, elbow, { kind: 'lower', side: s, limb: 'arm' });
    b.add(`hand_${s}`, `lowerarm_${s}`, wrist);
    for (const f of fingerLayout(wrist, dir, sign)) {
      if (f.finger === 'thumb') {
        for (let k = 1; k <= 3; k++)
          b.add(`thumb_0${k}_${s}`, k === 1 ? `hand_${s}` : `thumb_0${k - 1}_${s}`, add(f.base, scale(f.step, k - 1)));
        continue;
      }
      b.add(
        `${f.finger}_metacarpal_${s}`,
        `hand_${s}`,
        add(wrist, scale(dir, 0.01)).map((c, i) => c + (i === 2 ? f.base[2] - wrist[2] : 0)) as Vec3,
      );
      for (let k = 1; k <= 3; k++)
        b.add(
          `${f.finger}_0${k}_${s}`,
          k === 1 ? `${f.finger}_metacarpal_${s}` : `${f.finger}_0${k - 1}_${s}`,
          add(add(f.base, scale(dir, 0.06)), scale(f.step, k - 1)),
        );
    }
    b.add(`upperarm_twist_01_${s}`, `upperarm_${s}`, add(shoulder, scale(dir, 0.09)));
    b.add(`upperarm_twist_02_${s}`, `upperarm_${s}`, add(shoulder, scale(dir, 0.19)));
    b.add(`lowerarm_twist_01_${s}`, `lowerarm_${s}`, add(elbow, scale(dir, 0.09)));
    b.add(`lowerarm_twist_02_${s}`, `lowerarm_${s}`, add(elbow, scale(dir, 0.18)));
  }
  for (const { s, sign } of SIDES) {
    const hip: Vec3 = [0.09 * sign, 0.93, 0];
    const knee: Vec3 = [0.09 * sign, 0.5, 0.01];
    const ankle: Vec3 = [0.09 * sign, 0.08, -0.02];
    b.add(`thigh_${s}`, 'pelvis', hip, { kind: 'upper', side: s, limb: 'leg' });
    b.add(`calf_${s}`, `thigh_${s}`, knee, { kind: 'lower', side: s, limb: 'leg' });
    b.add(`foot_${s}`, `calf_${s}`, ankle, { kind: 'foot', side: s });
    b.add(`ball_${s}`, `foot_${s}`, [0.09 * sign, 0.01, 0.12]);
    b.add(`thigh_twist_01_${s}`, `thigh_${s}`, add(hip, scale(sub(knee, hip), 1 / 3)));
    b.add(`thigh_twist_02_${s}`, `thigh_${s}`, add(hip, scale(sub(knee, hip), 2 / 3)));
    b.add(`calf_twist_01_${s}`, `calf_${s}`, add(knee, scale(sub(ankle, knee), 1 / 3)));
    b.add(`calf_twist_02_${s}`, `calf_${s}`, add(knee, scale(sub(ankle, knee), 2 / 3)));
  }
  // Unreal's IK helper bones, which MetaHuman bodies carry at the end of the hierarchy.
  b.add('ik_foot_root', 'root', [0, 0, 0]);
  for (const { s } of SIDES) b.add(`ik_foot_${s}`, 'ik_foot_root', b.at(`foot_${s}`));
  b.add('ik_hand_root', 'root', [0, 0, 0]);
  for (const { s } of SIDES) b.add(`ik_hand_${s}`, 'ik_hand_root', b.at(`hand_${s}`));
}

/** Face controls of the `expression` set: 33 joints under the head, laid on the face's front. */
const FACE_CONTROLS: Array<[string, Vec3]> = [
  ['FACIAL_C_FacialRoot', [0, 1.62, 0.05]],
  ['FACIAL_C_Jaw', [0, 1.6, 0.03]],
  ['FACIAL_C_Chin', [0, 1.555, 0.1]],
  ['FACIAL_C_LipUpper', [0, 1.6, 0.115]],
  ['FACIAL_C_LipLower', [0, 1.585, 0.112]],
  ['FACIAL_C_NoseTip', [0, 1.635, 0.125]],
  ['FACIAL_C_NoseBridge', [0, 1.67, 0.105]],
  ['FACIAL_C_Forehead', [0, 1.72, 0.095]],
  ['FACIAL_C_Tongue', [0, 1.595, 0.07]],
];
const FACE_SIDED: Array<[string, Vec3]> = [
  ['Eye', [0.032, 1.67, 0.085]],
  ['EyelidUpper', [0.032, 1.68, 0.095]],
  ['EyelidLower', [0.032, 1.66, 0.094]],
  ['BrowInner', [0.018, 1.7, 0.1]],
  ['BrowMid', [0.035, 1.705, 0.097]],
  ['BrowOuter', [0.052, 1.7, 0.085]],
  ['Cheek', [0.045, 1.62, 0.09]],
  ['CheekUpper', [0.05, 1.645, 0.088]],
  ['Nostril', [0.014, 1.627, 0.113]],
  ['LipCorner', [0.026, 1.592, 0.104]],
  ['LipUpper', [0.013, 1.6, 0.112]],
  ['LipLower', [0.013, 1.585, 0.109]],
];

/** Face controls animated by translation (face-controls.ts); the jaw rotates. */
const TRANSLATED_CONTROLS = new Set(['EyelidUpper', 'EyelidLower', 'BrowInner', 'BrowMid', 'BrowOuter', 'LipCorner']);

function faceControls(b: Builder): void {
  b.add(FACE_CONTROLS[0][0], 'head', FACE_CONTROLS[0][1]);
  for (const [name, p] of FACE_CONTROLS.slice(1))
    b.add(
      name,
      name === 'FACIAL_C_Chin' || name === 'FACIAL_C_LipLower' || name === 'FACIAL_C_Tongue' ? 'FACIAL_C_Jaw' : 'FACIAL_C_FacialRoot',
      p,
    );
  for (const [name, p] of FACE_SIDED) {
    for (const { s, sign } of SIDES) {
      const side = s.toUpperCase();
      const parent = name === 'LipLower' ? 'FACIAL_C_Jaw' : 'FACIAL_C_FacialRoot';
      b.add(`FACIAL_${side}_${name}`, parent, mirror(p, sign));
      if (TRANSLATED_CONTROLS.has(name)) b.joints[b.joints.length - 1].control = true;
    }
  }
}

/**
 * The rest of the full facial rig (322 joints): dense detail joints per region of the face, each a
 * child of the region's control, laid on an ellipse around it. Named FACIAL_<side>_<Region>Detail<n>.
 */
const FACE_DETAIL: Array<[region: string, parent: string, perSide: number]> = [
  ['Brow', 'BrowMid', 14],
  ['EyelidUpper', 'EyelidUpper', 12],
  ['EyelidLower', 'EyelidLower', 12],
  ['Cheek', 'Cheek', 16],
  ['CheekUpper', 'CheekUpper', 10],
  ['Nose', 'Nostril', 18],
  ['LipUpper', 'LipUpper', 16],
  ['LipLower', 'LipLower', 16],
  ['LipCorner', 'LipCorner', 8],
  ['Jaw', 'LipCorner', 12],
  ['Ear', 'Cheek', 10],
  ['Temple', 'BrowOuter', 6],
  ['Forehead', 'BrowInner', 11],
];

function faceDetail(b: Builder): void {
  for (const [region, control, n] of FACE_DETAIL) {
    for (const { s } of SIDES) {
      const side = s.toUpperCase();
      const parent = `FACIAL_${side}_${control}`;
      const c = b.at(parent);
      for (let k = 0; k < n; k++) {
        const a = (2 * Math.PI * k) / n;
        b.add(`FACIAL_${side}_${region}Detail${String(k + 1).padStart(2, '0')}`, parent, [
          c[0] + 0.008 * Math.cos(a),
          c[1] + 0.006 * Math.sin(a),
          c[2] - 0.002,
        ]);
      }
    }
  }
}

function mixamo(b: Builder): void {
  const m = (n: string) => `mixamorig:${n}`;
  b.add(m('Hips'), null, [0, 1.0, 0], { kind: 'hips' });
  b.add(m('Spine'), m('Hips'), [0, 1.1, 0], { kind: 'spine', t: 1 / 3 });
  b.add(m('Spine1'), m('Spine'), [0, 1.22, 0], { kind: 'spine', t: 2 / 3 });
  b.add(m('Spine2'), m('Spine1'), [0, 1.35, 0], { kind: 'spine', t: 1 });
  b.add(m('Neck'), m('Spine2'), [0, 1.5, 0], { kind: 'neck' });
  b.add(m('Head'), m('Neck'), [0, 1.6, 0.02], { kind: 'head' });
  for (const { s, sign, cap } of SIDES) {
    const dir: Vec3 = [sign, 0, 0];
    const shoulder: Vec3 = [0.18 * sign, 1.45, 0];
    const elbow = add(shoulder, scale(dir, 0.28));
    const wrist = add(elbow, scale(dir, 0.26));
    b.add(m(`${cap}Shoulder`), m('Spine2'), [0.06 * sign, 1.45, 0]);
    b.add(m(`${cap}Arm`), m(`${cap}Shoulder`), shoulder, { kind: 'upper', side: s, limb: 'arm' });
    b.add(m(`${cap}ForeArm`), m(`${cap}Arm`), elbow, { kind: 'lower', side: s, limb: 'arm' });
    b.add(m(`${cap}Hand`), m(`${cap}ForeArm`), wrist);
    for (const f of fingerLayout(wrist, dir, sign)) {
      const name = f.finger[0].toUpperCase() + f.finger.slice(1);
      for (let k = 1; k <= 3; k++)
        b.add(
          m(`${cap}Hand${name}${k}`),
          k === 1 ? m(`${cap}Hand`) : m(`${cap}Hand${name}${k - 1}`),
          add(add(f.base, scale(dir, f.finger === 'thumb' ? 0 : 0.06)), scale(f.step, k - 1)),
        );
    }
  }
  for (const { s, sign, cap } of SIDES) {
    b.add(m(`${cap}UpLeg`), m('Hips'), [0.09 * sign, 0.95, 0], { kind: 'upper', side: s, limb: 'leg' });
    b.add(m(`${cap}Leg`), m(`${cap}UpLeg`), [0.09 * sign, 0.52, 0.01], { kind: 'lower', side: s, limb: 'leg' });
    b.add(m(`${cap}Foot`), m(`${cap}Leg`), [0.09 * sign, 0.09, -0.02], { kind: 'foot', side: s });
    b.add(m(`${cap}ToeBase`), m(`${cap}Foot`), [0.09 * sign, 0.01, 0.12]);
  }
}

/** COCO-17 indices 5..16 → the joint whose rest position sits at that body point. */
function cocoMap(b: Builder, names: Record<number, string>): Record<number, number> {
  return Object.fromEntries(Object.entries(names).map(([k, n]) => [Number(k), b.idx(n)]));
}

const cache = new Map<string, Skeleton>();

/** The MetaHuman-named skeleton for a joint set (86 / 119 / 441 joints). */
export function metahumanSkeleton(set: JointSet): Skeleton {
  const key = `metahuman:${set}`;
  const hit = cache.get(key);
  if (hit) return hit;
  const b = new Builder();
  metahumanBody(b);
  if (set !== 'body') faceControls(b);
  if (set === 'full') faceDetail(b);
  const sk: Skeleton = {
    id: 'metahuman',
    joints: b.joints,
    rootMotionJoint: b.idx('root'),
    hipsJoint: b.idx('pelvis'),
    feet: [b.idx('foot_l'), b.idx('foot_r')],
    cocoJoints: cocoMap(b, {
      5: 'upperarm_l',
      6: 'upperarm_r',
      7: 'lowerarm_l',
      8: 'lowerarm_r',
      9: 'hand_l',
      10: 'hand_r',
      11: 'thigh_l',
      12: 'thigh_r',
      13: 'calf_l',
      14: 'calf_r',
      15: 'foot_l',
      16: 'foot_r',
    }),
  };
  cache.set(key, sk);
  return sk;
}

/** Mixamo's standard skeleton (`mixamorig:` names, T-pose), 52 joints, the same for every joint set. */
export function mixamoSkeleton(): Skeleton {
  const hit = cache.get('mixamo');
  if (hit) return hit;
  const b = new Builder();
  mixamo(b);
  const m = (n: string) => `mixamorig:${n}`;
  const sk: Skeleton = {
    id: 'mixamo',
    joints: b.joints,
    rootMotionJoint: b.idx(m('Hips')),
    hipsJoint: b.idx(m('Hips')),
    feet: [b.idx(m('LeftFoot')), b.idx(m('RightFoot'))],
    cocoJoints: cocoMap(b, {
      5: m('LeftArm'),
      6: m('RightArm'),
      7: m('LeftForeArm'),
      8: m('RightForeArm'),
      9: m('LeftHand'),
      10: m('RightHand'),
      11: m('LeftUpLeg'),
      12: m('RightUpLeg'),
      13: m('LeftLeg'),
      14: m('RightLeg'),
      15: m('LeftFoot'),
      16: m('RightFoot'),
    }),
  };
  cache.set('mixamo', sk);
  return sk;
}

/** Joint counts per set (interface-v1 2.6); Characters and Motions both read them from here. */
export function jointCount(set: JointSet): number {
  return metahumanSkeleton(set).joints.length;
}

/** Local rest offset of joint `i` (translation from its parent). */
export function restOffset(sk: Skeleton, i: number): Vec3 {
  const j = sk.joints[i];
  return j.parent < 0 ? j.rest : sub(j.rest, sk.joints[j.parent].rest);
}
