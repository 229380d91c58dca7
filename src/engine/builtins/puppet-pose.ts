/**
 * The canonical skeleton of the built-ins: a 512x768 canvas, a figure facing the camera (its left
 * side on the image's right, as COCO expects). A pose is a handful of joint angles in degrees;
 * forward kinematics turns it into COCO-17 keypoints. Templates keyframe these angles and the
 * default character is drawn around the rest pose, so the two match bone for bone.
 */
import type { Keypoint } from '../types.js';

export const CANVAS = { width: 512, height: 768 } as const;

/** Segment lengths in canvas px. */
// Human-like ratios (torso : leg ≈ 0.6) so a performer's pose reads the same on the puppet.
const L = { torso: 132, head: 60, shoulder: 46, hip: 28, upperArm: 84, forearm: 76, thigh: 112, shin: 106 } as const;
/**
 * Head radius. A cartoon head wider than the shoulders reads to a photo-trained pose model as the
 * upper body (it put the shoulders on the cheeks); at about half the shoulder span the puppet keeps
 * its charm and is read as a person.
 */
const HEAD_R = 42;
/** Radius the face layout (eye, ear and mouth offsets, here and in the drawing) was designed at. */
export const FACE_DESIGN_R = 54;
const ROOT = { x: 256, y: 420 } as const;

export interface PuppetPose {
  /** Root offset from its rest position (px; y down). */
  rx: number;
  ry: number;
  /** Torso lean, degrees, positive = clockwise on screen (towards the figure's right side). */
  lean: number;
  /** Head tilt relative to the torso, degrees. */
  head: number;
  /** Upper arm angle from hanging straight down, degrees, positive = away from the body (up and out). */
  lSh: number;
  rSh: number;
  /** Elbow bend added to the upper arm's angle, degrees, positive = further out/up. */
  lEl: number;
  rEl: number;
  /** Thigh angle from straight down, positive = away from the body. Absolute, not leaning with the torso. */
  lHip: number;
  rHip: number;
  /** Knee bend added to the thigh's angle, positive = further out. */
  lKnee: number;
  rKnee: number;
  /**
   * Turn about the vertical axis, degrees (0 = facing the camera, 180 = seen from behind). A 2D
   * puppet shows it as the body's width shrinking by cos(turn) about the root and mirroring past 90.
   */
  turn: number;
  /** Forward bend of the torso towards the camera, degrees: the torso and head foreshorten by cos(bend). */
  bend: number;
  /** 0..1: thighs come towards the camera (squatting or sitting); the root drops so the feet stay down. */
  squat: number;
}

export const REST_POSE: PuppetPose = {
  rx: 0,
  ry: 0,
  lean: 0,
  head: 0,
  lSh: 24,
  rSh: 24,
  lEl: -6,
  rEl: -6,
  lHip: 7,
  rHip: 7,
  lKnee: -2,
  rKnee: -2,
  turn: 0,
  bend: 0,
  squat: 0,
};

const rad = (d: number): number => (d * Math.PI) / 180;
/** Rotates (x, y) by `deg` clockwise on a y-down screen. */
function rot(x: number, y: number, deg: number): [number, number] {
  const c = Math.cos(rad(deg)),
    s = Math.sin(rad(deg));
  return [x * c - y * s, x * s + y * c];
}

/** COCO-17 keypoints of a pose (score 1). */
export function puppetKeypoints(p: PuppetPose): Keypoint[] {
  const squat = Math.min(1, Math.max(0, p.squat ?? 0));
  const thighK = 1 - 0.8 * squat;
  const root: [number, number] = [ROOT.x + p.rx, ROOT.y + p.ry + (1 - thighK) * L.thigh];
  const bendK = Math.max(0.25, Math.cos(rad(p.bend ?? 0)));
  const [ux, uy] = rot(0, -1, p.lean);
  const [sx, sy] = rot(1, 0, p.lean);
  const neck: [number, number] = [root[0] + ux * L.torso * bendK, root[1] + uy * L.torso * bendK];
  const add = (a: [number, number], d: [number, number], len: number): [number, number] => [a[0] + d[0] * len, a[1] + d[1] * len];
  // Left limbs point outward towards +x, which is a counter-clockwise turn from "down".
  const limb = (origin: [number, number], a: number, b: number, side: 1 | -1, l1: number, l2: number, lean: number) => {
    const mid = add(origin, rot(0, 1, lean - side * a), l1);
    const end = add(mid, rot(0, 1, lean - side * (a + b)), l2);
    return [mid, end] as const;
  };
  const lShoulder = add(neck, [sx, sy], L.shoulder);
  const rShoulder = add(neck, [sx, sy], -L.shoulder);
  const lHip = add(root, [sx, sy], L.hip);
  const rHip = add(root, [sx, sy], -L.hip);
  const [lElbow, lWrist] = limb(lShoulder, p.lSh, p.lEl, 1, L.upperArm, L.forearm, p.lean);
  const [rElbow, rWrist] = limb(rShoulder, p.rSh, p.rEl, -1, L.upperArm, L.forearm, p.lean);
  const [lKnee, lAnkle] = limb(lHip, p.lHip, p.lKnee, 1, L.thigh * thighK, L.shin, 0);
  const [rKnee, rAnkle] = limb(rHip, p.rHip, p.rKnee, -1, L.thigh * thighK, L.shin, 0);
  const [hx, hy] = rot(ux, uy, p.head);
  const [hsx, hsy] = rot(sx, sy, p.head);
  const head = add(neck, [hx, hy], L.head * bendK);
  const f = HEAD_R / FACE_DESIGN_R;
  const face = (side: number, up: number): [number, number] => [head[0] + (hsx * side + hx * up) * f, head[1] + (hsy * side + hy * up) * f];
  const pts: Array<[number, number]> = [
    face(0, -10),
    face(18, 6),
    face(-18, 6),
    face(44, 0),
    face(-44, 0),
    lShoulder,
    rShoulder,
    lElbow,
    rElbow,
    lWrist,
    rWrist,
    lHip,
    rHip,
    lKnee,
    rKnee,
    lAnkle,
    rAnkle,
  ];
  // Turning: widths shrink by cos(turn) about the root's vertical line (and mirror past 90 degrees).
  const c = Math.cos(rad(p.turn ?? 0));
  return pts.map(([x, y]) => ({ x: Math.round((root[0] + (x - root[0]) * c) * 100) / 100, y: Math.round(y * 100) / 100, score: 1 }));
}

/** Head centre and radius of a pose (for drawing). */
export function puppetHead(p: PuppetPose): { x: number; y: number; r: number } {
  const k = puppetKeypoints(p);
  // Eyes sit 6 design px above the head centre (see the face offsets above).
  return { x: (k[1].x + k[2].x) / 2, y: (k[1].y + k[2].y) / 2 + (6 * HEAD_R) / FACE_DESIGN_R, r: HEAD_R };
}
