/**
 * The character skeleton: 15 joints and 10 bones derived from COCO-17 keypoints. Joint positions are
 * in texture pixels. The same derivation is applied to driving poses by the retargeter, so character
 * and performer are compared bone by bone.
 */
import type { Keypoint } from '../types.js';

export const RIG_JOINTS = [
  'root', // hip centre
  'neck', // shoulder centre
  'head', // centre of the visible face keypoints
  'leftShoulder',
  'leftElbow',
  'leftWrist',
  'rightShoulder',
  'rightElbow',
  'rightWrist',
  'leftHip',
  'leftKnee',
  'leftAnkle',
  'rightHip',
  'rightKnee',
  'rightAnkle',
] as const;
export type RigJointName = (typeof RIG_JOINTS)[number];

export interface BoneDef {
  name: string;
  /** Index of the parent bone, -1 for the torso (the root bone). */
  parent: number;
  /** Joint the bone rotates about. */
  from: number;
  /** Joint at the bone's far end (direction of the bone). */
  to: number;
}

const J = (n: RigJointName): number => RIG_JOINTS.indexOf(n);

/** Parents always precede children, so forward kinematics is a single pass in index order. */
export const BONES: readonly BoneDef[] = [
  { name: 'torso', parent: -1, from: J('root'), to: J('neck') },
  { name: 'head', parent: 0, from: J('neck'), to: J('head') },
  { name: 'leftUpperArm', parent: 0, from: J('leftShoulder'), to: J('leftElbow') },
  { name: 'leftForearm', parent: 2, from: J('leftElbow'), to: J('leftWrist') },
  { name: 'rightUpperArm', parent: 0, from: J('rightShoulder'), to: J('rightElbow') },
  { name: 'rightForearm', parent: 4, from: J('rightElbow'), to: J('rightWrist') },
  { name: 'leftThigh', parent: 0, from: J('leftHip'), to: J('leftKnee') },
  { name: 'leftShin', parent: 6, from: J('leftKnee'), to: J('leftAnkle') },
  { name: 'rightThigh', parent: 0, from: J('rightHip'), to: J('rightKnee') },
  { name: 'rightShin', parent: 8, from: J('rightKnee'), to: J('rightAnkle') },
];
export const BONE_COUNT = BONES.length;

/**
 * Drawing order per bone, back to front: legs behind the torso, then head, arms in front, so an
 * arm swung across the body stays visible (the usual choice for 2D puppets).
 */
export const BONE_LAYER: readonly number[] = [2, 3, 4, 5, 4, 5, 0, 1, 0, 1];

export interface Point {
  x: number;
  y: number;
}

const mid = (a: Keypoint, b: Keypoint): Point => ({ x: (a.x + b.x) / 2, y: (a.y + b.y) / 2 });

/** COCO indices used below. */
const K = {
  nose: 0,
  lEye: 1,
  rEye: 2,
  lEar: 3,
  rEar: 4,
  lSh: 5,
  rSh: 6,
  lEl: 7,
  rEl: 8,
  lWr: 9,
  rWr: 10,
  lHip: 11,
  rHip: 12,
  lKn: 13,
  rKn: 14,
  lAn: 15,
  rAn: 16,
} as const;

/**
 * Face centre: mean of face keypoints above a confidence floor; falls back to a point above the neck
 * one shoulder-width up when the face is not visible (e.g. the performer turns away).
 */
function headPoint(body: Keypoint[], neck: Point, minScore: number): Point {
  let sx = 0;
  let sy = 0;
  let n = 0;
  for (const i of [K.nose, K.lEye, K.rEye, K.lEar, K.rEar]) {
    const k = body[i];
    if (k && k.score >= minScore) {
      sx += k.x;
      sy += k.y;
      n++;
    }
  }
  if (n > 0) return { x: sx / n, y: sy / n };
  const w = Math.hypot(body[K.lSh].x - body[K.rSh].x, body[K.lSh].y - body[K.rSh].y);
  return { x: neck.x, y: neck.y - Math.max(w, 1) * 0.8 };
}

/** 15 rig joints from 17 COCO keypoints (any pixel space). */
export function jointsFromKeypoints(body: Keypoint[], minFaceScore = 0.15): Point[] {
  if (body.length !== 17) throw new Error(`expected 17 keypoints, got ${body.length}`);
  const root = mid(body[K.lHip], body[K.rHip]);
  const neck = mid(body[K.lSh], body[K.rSh]);
  const p = (i: number): Point => ({ x: body[i].x, y: body[i].y });
  return [
    root,
    neck,
    headPoint(body, neck, minFaceScore),
    p(K.lSh),
    p(K.lEl),
    p(K.lWr),
    p(K.rSh),
    p(K.rEl),
    p(K.rWr),
    p(K.lHip),
    p(K.lKn),
    p(K.lAn),
    p(K.rHip),
    p(K.rKn),
    p(K.rAn),
  ];
}

/** Confidence of each rig joint (min of the keypoints it is made of). */
export function jointScores(body: Keypoint[]): number[] {
  const s = (i: number): number => body[i].score;
  const face = Math.max(s(K.nose), s(K.lEye), s(K.rEye), s(K.lEar), s(K.rEar));
  return [
    Math.min(s(K.lHip), s(K.rHip)),
    Math.min(s(K.lSh), s(K.rSh)),
    face,
    s(K.lSh),
    s(K.lEl),
    s(K.lWr),
    s(K.rSh),
    s(K.rEl),
    s(K.rWr),
    s(K.lHip),
    s(K.lKn),
    s(K.lAn),
    s(K.rHip),
    s(K.rKn),
    s(K.rAn),
  ];
}

export function boneLength(joints: Point[], b: number): number {
  const d = BONES[b];
  return Math.hypot(joints[d.to].x - joints[d.from].x, joints[d.to].y - joints[d.from].y);
}

/** Size measure used to match a character to a performer: torso plus the mean leg length. */
export function bodyScale(joints: Point[]): number {
  const leg = (boneLength(joints, 6) + boneLength(joints, 7) + boneLength(joints, 8) + boneLength(joints, 9)) / 2;
  return boneLength(joints, 0) + leg;
}
