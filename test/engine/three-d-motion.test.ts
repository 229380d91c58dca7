import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { after, before, describe, it } from 'node:test';
import validator from 'gltf-validator';
import { resolveTools } from '../../src/engine/media/ffmpeg.js';
import { extractMotion } from '../../src/engine/motion/extract-motion.js';
import { motionClips, writeMotion3d, MOTION_3D_FILES } from '../../src/engine/three-d/export-motion.js';
import { boneLengthVariation, plantedFootSlide, reprojectionPck } from '../../src/engine/three-d/motion-quality.js';
import { jointCount, metahumanSkeleton, mixamoSkeleton, JOINT_SETS } from '../../src/engine/three-d/skeletons.js';
import { qmul, qconj, type Quat } from '../../src/engine/three-d/math3d.js';
import type { SkeletalClip } from '../../src/engine/three-d/motion3d.js';
import type { MotionTrack } from '../../src/engine/types.js';
import { LIFTED_POINTS, type WorldDepth } from '../../src/engine/three-d/lift.js';
import { WORLD_STRIDE, measureVideo3d, measureWorldDepth } from '../../src/engine/three-d/world-track.js';
import type { FaceSample } from '../../src/engine/three-d/face-controls.js';
import type { HandTrack } from '../../src/engine/three-d/hand-controls.js';
import { mediaPath, missingMedia } from '../helpers/engine-fixtures.js';

const run = promisify(execFile);
let tmp: string;
before(async () => {
  tmp = await mkdtemp(join(tmpdir(), 'marionette-3d-motion-'));
});
after(async () => {
  await rm(tmp, { recursive: true, force: true });
});

async function hasAssimp(): Promise<boolean> {
  try {
    await run('assimp', ['version']);
    return true;
  } catch {
    return false;
  }
}
const assimpMissing = (await hasAssimp())
  ? false
  : 'assimp (Debian assimp-utils) is not installed; .ci/run installs it; skipping the independent FBX read-back';

async function validateGlb(file: string): Promise<{ errors: number; messages: string[] }> {
  const r = await validator.validateBytes(new Uint8Array(await readFile(file)));
  return {
    errors: r.issues.numErrors,
    messages: r.issues.messages
      .filter((m: { severity: number }) => m.severity === 0)
      .map((m: { code: string; message: string }) => `${m.code}: ${m.message}`),
  };
}

interface AssNode {
  name: string;
  children?: AssNode[];
}
interface AssJson {
  rootnode: AssNode;
  animations: Array<{
    name: string;
    duration: number;
    tickspersecond: number;
    channels: Array<{ name: string; rotationkeys: Array<[number, number[]]>; positionkeys: Array<[number, number[]]> }>;
  }>;
}

/** Reads a file with assimp (a separate process) and returns its JSON dump. */
async function readWithAssimp(file: string): Promise<AssJson> {
  const out = `${file}.assimp.json`;
  await run('assimp', ['export', file, out, '-fjson']);
  return JSON.parse(await readFile(out, 'utf8')) as AssJson;
}

function parentsOf(root: AssNode): Map<string, string> {
  const out = new Map<string, string>();
  const walk = (n: AssNode) =>
    n.children?.forEach((c) => {
      out.set(c.name, n.name);
      walk(c);
    });
  walk(root);
  return out;
}

/** Angle (degrees) between two rotations. */
function angleDeg(a: Quat, b: Quat): number {
  const d = qmul(qconj(a), b);
  return (2 * Math.acos(Math.min(1, Math.abs(d[3]))) * 180) / Math.PI;
}

/** Every independent check of one written clip: glTF validator, assimp's hierarchy, frame count, duration and rotations. */
async function checkExports(
  dir: string,
  clips: { metahuman: SkeletalClip; mixamo: SkeletalClip },
  fps: number,
  frames: number,
  checkFbx: boolean,
): Promise<void> {
  for (const name of ['metahuman', 'mixamo'] as const) {
    const v = await validateGlb(join(dir, `${name}.glb`));
    assert.equal(v.errors, 0, `${name}.glb: ${v.messages.join('; ')}`);
    if (!checkFbx) continue;
    const clip = clips[name];
    const sk = clip.skeleton;
    const got = await readWithAssimp(join(dir, `${name}.fbx`));
    const parents = parentsOf(got.rootnode);
    for (const j of sk.joints) {
      assert.ok(parents.has(j.name), `${name}.fbx lacks joint ${j.name}`);
      assert.equal(parents.get(j.name), j.parent < 0 ? got.rootnode.name : sk.joints[j.parent].name, `${name}.fbx parent of ${j.name}`);
    }
    assert.equal(parents.size, sk.joints.length, `${name}.fbx has exactly the skeleton's joints`);
    assert.equal(got.animations.length, 1);
    const anim = got.animations[0];
    assert.equal(anim.tickspersecond, fps);
    assert.ok(Math.abs(anim.duration - (frames - 1)) < 1e-3, `duration ${anim.duration} ticks for ${frames} frames`);
    // The rotations read back match the clip's local rotations (Euler round trip through FBX).
    let worst = 0;
    for (const ch of anim.channels) {
      const j = sk.joints.findIndex((x) => x.name === ch.name);
      assert.ok(j >= 0, `channel ${ch.name} is a joint`);
      // assimp may add keys between two far-apart Euler keys; the keys on frame times are ours.
      const onFrames = ch.rotationkeys.filter(([t]) => Math.abs(t - Math.round(t)) < 1e-6);
      if (ch.rotationkeys.length > 1) assert.equal(onFrames.length, frames, `${ch.name} keys`);
      for (const [t, [w, x, y, z]] of onFrames) {
        const o = (Math.round(t) * sk.joints.length + j) * 4;
        const mine: Quat = [clip.rotations[o], clip.rotations[o + 1], clip.rotations[o + 2], clip.rotations[o + 3]];
        worst = Math.max(worst, angleDeg(mine, [x, y, z, w]));
      }
    }
    assert.ok(worst < 0.5, `FBX rotations differ by up to ${worst.toFixed(3)} degrees`);
    // Face controls carry translation curves (centimetres in the file, metres in the clip).
    for (const [j, joint] of sk.joints.entries()) {
      if (!joint.control) continue;
      const ch = anim.channels.find((c) => c.name === joint.name);
      assert.ok(ch, `${name}.fbx has a channel for the control ${joint.name}`);
      const keys = ch.positionkeys.filter(([t]) => Math.abs(t - Math.round(t)) < 1e-6);
      assert.equal(keys.length, frames, `${joint.name} position keys`);
      for (const [t, p] of keys) {
        const o = (Math.round(t) * sk.joints.length + j) * 3;
        const mine = [0, 1, 2].map((k) => clip.translations[o + k]);
        // assimp may report centimetres or metres depending on its unit scaling; compare shapes by ratio.
        const scale = Math.abs(p[1]) > 1e-9 && Math.abs(mine[1]) > 1e-9 ? p[1] / mine[1] : 1;
        for (let k = 0; k < 3; k++)
          assert.ok(Math.abs(p[k] - mine[k] * scale) < 1e-3 * Math.max(1, Math.abs(scale)), `${joint.name} key ${t}`);
      }
    }
  }
}

describe('3D motion: skeletons and joint sets', () => {
  it('docs/engine-3d.md lists every joint of every set and the counts', async () => {
    const doc = await readFile(new URL('../../docs/engine-3d.md', import.meta.url), 'utf8');
    for (const j of [...metahumanSkeleton('full').joints, ...mixamoSkeleton().joints])
      assert.ok(doc.includes(`\`${j.name}\``), `docs lack ${j.name}`);
    for (const [set, n] of [
      ['body', 86],
      ['expression', 119],
      ['full', 441],
    ] as const)
      assert.ok(doc.includes(`### ${set} (${n})`));
  });

  it('joint counts are the interface table (2.6): body 86, expression 119, full 441; Mixamo 52', () => {
    assert.deepEqual(JOINT_SETS.map(jointCount), [86, 119, 441]);
    assert.equal(mixamoSkeleton().joints.length, 52);
    for (const set of JOINT_SETS) {
      const names = metahumanSkeleton(set).joints.map((j) => j.name);
      assert.equal(new Set(names).size, names.length, 'unique names');
      for (const n of [
        'root',
        'pelvis',
        'spine_01',
        'spine_05',
        'neck_01',
        'head',
        'thigh_l',
        'calf_r',
        'foot_l',
        'ball_r',
        'upperarm_l',
        'hand_r',
        'index_03_l',
      ])
        assert.ok(names.includes(n), n);
    }
    const mx = mixamoSkeleton().joints;
    const byName = new Map(mx.map((j) => [j.name, j]));
    assert.equal(mx[byName.get('mixamorig:LeftUpLeg')!.parent].name, 'mixamorig:Hips');
    assert.equal(mx[byName.get('mixamorig:LeftArm')!.parent].name, 'mixamorig:LeftShoulder');
    // T-pose: the arms are horizontal.
    assert.ok(Math.abs(byName.get('mixamorig:LeftHand')!.rest[1] - byName.get('mixamorig:LeftArm')!.rest[1]) < 1e-9);
  });
});

/**
 * A synthetic performer: jumping jacks seen from the front, arms and legs moving in the image plane,
 * drawn by projecting a known skeleton. In-plane angles are recoverable exactly, so the Mixamo
 * arm must point where the drawn arm points.
 */
function jumpingJacks(frames: number, fps: number, scale: number, offsetX: number): { track: MotionTrack; armAngles: number[] } {
  const armAngles: number[] = [];
  const track: MotionTrack = {
    version: 1,
    fps,
    frameCount: frames,
    durationMs: Math.round((frames * 1000) / fps),
    width: 1000,
    height: 1000,
    smoothing: false,
    frames: [],
  };
  for (let t = 0; t < frames; t++) {
    const phase = (Math.sin((2 * Math.PI * t) / fps) + 1) / 2;
    const arm = (-60 + 150 * phase) * (Math.PI / 180);
    const leg = (5 + 15 * phase) * (Math.PI / 180);
    armAngles.push(arm);
    const P = (x: number, y: number) => ({ x: offsetX + x * scale, y: 900 - y * scale, score: 0.9 });
    const sh = 1.45,
      hip = 0.95;
    const la = [Math.cos(arm), Math.sin(arm)];
    const pts = new Array(17);
    pts[0] = P(0, 1.62);
    pts[1] = P(0.03, 1.65);
    pts[2] = P(-0.03, 1.65);
    pts[3] = P(0.07, 1.63);
    pts[4] = P(-0.07, 1.63);
    pts[5] = P(0.18, sh);
    pts[6] = P(-0.18, sh);
    pts[7] = P(0.18 + 0.28 * la[0], sh + 0.28 * la[1]);
    pts[8] = P(-0.18 - 0.28 * la[0], sh + 0.28 * la[1]);
    pts[9] = P(0.18 + 0.54 * la[0], sh + 0.54 * la[1]);
    pts[10] = P(-0.18 - 0.54 * la[0], sh + 0.54 * la[1]);
    pts[11] = P(0.09, hip);
    pts[12] = P(-0.09, hip);
    pts[13] = P(0.09 + 0.43 * Math.sin(leg), hip - 0.43 * Math.cos(leg));
    pts[14] = P(-0.09 - 0.43 * Math.sin(leg), hip - 0.43 * Math.cos(leg));
    pts[15] = P(0.09 + 0.86 * Math.sin(leg), hip - 0.86 * Math.cos(leg));
    pts[16] = P(-0.09 - 0.86 * Math.sin(leg), hip - 0.86 * Math.cos(leg));
    track.frames.push({ timeMs: (t * 1000) / fps, body: pts, score: 0.9, detected: true });
  }
  return { track, armAngles };
}

describe('3D motion on a synthetic jumping-jack track', () => {
  for (const [scale, offsetX, fps] of [
    [300, 500, 30],
    [120, 200, 24],
  ] as const) {
    it(`follows in-plane limbs (figure ${scale} px/m at x=${offsetX}, ${fps} fps) and writes files independent readers accept`, async () => {
      const { track, armAngles } = jumpingJacks(fps * 3, fps, scale, offsetX);
      const clips = motionClips(track, { jointSet: 'body', smoothing: false });
      for (const clip of [clips.metahuman, clips.mixamo]) {
        assert.ok(reprojectionPck(clip, track) >= 0.95, `${clip.skeleton.id} PCK ${reprojectionPck(clip, track)}`);
        assert.ok(boneLengthVariation(clip) < 0.01);
        assert.ok(plantedFootSlide(clip) < 0.02);
      }
      const sk = clips.mixamo.skeleton;
      const arm = sk.joints.findIndex((j) => j.name === 'mixamorig:LeftArm');
      const fore = sk.joints.findIndex((j) => j.name === 'mixamorig:LeftForeArm');
      let worst = 0;
      for (let t = 0; t < track.frames.length; t++) {
        const w = (j: number) =>
          Array.from(clips.mixamo.world.subarray((t * sk.joints.length + j) * 3, (t * sk.joints.length + j) * 3 + 3));
        const [a, b] = [w(arm), w(fore)];
        const angle = Math.atan2(b[1] - a[1], b[0] - a[0]);
        worst = Math.max(worst, Math.abs(angle - armAngles[t]));
      }
      assert.ok(worst < (3 * Math.PI) / 180, `left upper arm off by ${((worst * 180) / Math.PI).toFixed(2)} degrees`);
      const dir = join(tmp, `jj-${scale}`);
      await mkdir(dir, { recursive: true });
      assert.deepEqual(await writeMotion3d(clips, dir), [...MOTION_3D_FILES]);
      await checkExports(dir, clips, fps, track.frames.length, assimpMissing === false);
    });
  }

  it('expression and full sets write valid files with all their joints', async () => {
    const { track } = jumpingJacks(20, 30, 200, 400);
    for (const jointSet of ['expression', 'full'] as const) {
      const clips = motionClips(track, { jointSet, smoothing: true });
      assert.equal(clips.metahuman.skeleton.joints.length, jointCount(jointSet));
      const dir = join(tmp, `set-${jointSet}`);
      await mkdir(dir, { recursive: true });
      await writeMotion3d(clips, dir);
      await checkExports(dir, clips, 30, 20, assimpMissing === false);
    }
  });

  it('face controls (expression, full) follow the face measures; they move by translation, bones stay constant', async () => {
    const { track } = jumpingJacks(30, 30, 200, 400);
    // A mouth that opens, a left eye that closes, brows that rise over the clip.
    const faces: FaceSample[] = Array.from({ length: 30 }, (_, t) => ({
      mouthOpen: t < 10 ? 0.01 : 0.4,
      eye: [t >= 20 ? 0.05 : 0.35, 0.35],
      brow: [0.5 + (t >= 20 ? 0.1 : 0), 0.5],
      mouthWidth: 0.5,
    }));
    for (const jointSet of ['expression', 'full'] as const) {
      const clips = motionClips(track, { jointSet, smoothing: false }, undefined, faces);
      const c = clips.metahuman;
      const sk = c.skeleton;
      const n = sk.joints.length;
      const at = (name: string) => sk.joints.findIndex((j) => j.name === name);
      const jawDeg = (t: number) => (2 * Math.asin(c.rotations[(t * n + at('FACIAL_C_Jaw')) * 4]) * 180) / Math.PI;
      assert.ok(jawDeg(5) < 0.5 && jawDeg(15) > 15, `jaw ${jawDeg(5)} -> ${jawDeg(15)} degrees`);
      const y = (name: string, t: number) => c.world[(t * n + at(name)) * 3 + 1] - c.world[(t * n + at('head')) * 3 + 1];
      assert.ok(y('FACIAL_C_Chin', 15) < y('FACIAL_C_Chin', 5) - 0.005, 'the chin drops with the jaw');
      assert.ok(y('FACIAL_L_EyelidUpper', 25) < y('FACIAL_L_EyelidUpper', 5) - 0.005, 'the left upper lid closes');
      assert.ok(Math.abs(y('FACIAL_R_EyelidUpper', 25) - y('FACIAL_R_EyelidUpper', 5)) < 1e-3, 'the right one does not');
      assert.ok(y('FACIAL_L_BrowMid', 25) > y('FACIAL_L_BrowMid', 5) + 0.003, 'the left brow rises');
      assert.ok(boneLengthVariation(c) < 0.01, `bone length variation ${boneLengthVariation(c)}`);
      const dir = join(tmp, `face-${jointSet}`);
      await mkdir(dir, { recursive: true });
      await writeMotion3d(clips, dir);
      await checkExports(dir, clips, 30, 30, assimpMissing === false);
    }
  });

  it('full: fingers bend by the measured angles on both skeletons, an unseen hand stays at rest, bones constant', async () => {
    const { track } = jumpingJacks(12, 30, 200, 400);
    const deg = Math.PI / 180;
    // Left hand: every joint of every finger bent 60 degrees; right hand never seen (stays at rest).
    const hands: HandTrack = Array.from({ length: 12 }, () => [Array.from({ length: 15 }, () => 60 * deg), null]);
    const clips = motionClips(track, { jointSet: 'full', smoothing: false }, undefined, null, hands);
    const angle = (u: number[], v: number[]) =>
      Math.acos((u[0] * v[0] + u[1] * v[1] + u[2] * v[2]) / (Math.hypot(u[0], u[1], u[2]) * Math.hypot(v[0], v[1], v[2]))) / deg;
    for (const [clip, a, b, c, palmSideOf] of [
      [clips.metahuman, 'index_01_l', 'index_02_l', 'index_03_l', 'index_01_r'],
      [clips.mixamo, 'mixamorig:LeftHandIndex1', 'mixamorig:LeftHandIndex2', 'mixamorig:LeftHandIndex3', 'mixamorig:RightHandIndex1'],
    ] as const) {
      const sk = clip.skeleton;
      const n = sk.joints.length;
      const at = (name: string, t: number) => {
        const j = sk.joints.findIndex((x) => x.name === name);
        return Array.from(clip.world.subarray((t * n + j) * 3, (t * n + j) * 3 + 3));
      };
      const sub3 = (p: number[], q: number[]) => [p[0] - q[0], p[1] - q[1], p[2] - q[2]];
      const bend = angle(sub3(at(b, 6), at(a, 6)), sub3(at(c, 6), at(b, 6)));
      assert.ok(Math.abs(bend - 60) < 1, `${sk.id} ${b} bends ${bend.toFixed(1)} degrees`);
      assert.ok(boneLengthVariation(clip) < 0.01, `${sk.id} bone length variation ${boneLengthVariation(clip)}`);
      // The unseen right hand keeps its rest pose: its finger joints have identity local rotations.
      const j = sk.joints.findIndex((x) => x.name === palmSideOf);
      assert.ok(Math.abs(clip.rotations[(6 * n + j) * 4 + 3] - 1) < 1e-6, `${palmSideOf} at rest`);
    }
    const dir = join(tmp, 'fingers');
    await mkdir(dir, { recursive: true });
    await writeMotion3d(clips, dir);
    await checkExports(dir, clips, 30, 12, assimpMissing === false);
  });

  it('refuses a track with unfilled frames', () => {
    const { track } = jumpingJacks(5, 30, 200, 400);
    track.frames[2] = { ...track.frames[2], body: [] };
    assert.throws(() => motionClips(track, { jointSet: 'body', smoothing: true }), /full body/);
  });
});

/**
 * Share of COCO joints whose measured world point, projected orthographically after a per-frame fit
 * of scale and offset (least squares), is within 0.2 torso of the 2D detection.
 */
function worldAgreement(world: WorldDepth, track: MotionTrack): number {
  let ok = 0,
    n = 0;
  world.forEach((w, t) => {
    const body = track.frames[t].body;
    if (!w) return;
    const P = body.slice(0, 17).map((k, i) => ({ x: k.x, y: k.y, X: w[i][0], Y: -w[i][1], seen: k.score >= 0.3 }));
    const S = P.filter((p) => p.seen);
    const mX = S.reduce((a, p) => a + p.X, 0) / S.length,
      mY = S.reduce((a, p) => a + p.Y, 0) / S.length;
    const mx = S.reduce((a, p) => a + p.x, 0) / S.length,
      my = S.reduce((a, p) => a + p.y, 0) / S.length;
    let num = 0,
      den = 0;
    for (const p of S) {
      num += (p.X - mX) * (p.x - mx) + (p.Y - mY) * (p.y - my);
      den += (p.X - mX) ** 2 + (p.Y - mY) ** 2;
    }
    const s = num / den;
    const torso = Math.hypot(body[5].x - body[12].x, body[5].y - body[12].y);
    for (const p of S) {
      n++;
      if (Math.hypot(s * (p.X - mX) + mx - p.x, s * (p.Y - mY) + my - p.y) <= 0.2 * torso) ok++;
    }
  });
  return ok / Math.max(1, n);
}

describe('3D motion from a real driving video', { skip: missingMedia('videos/liveportrait--s13.mp4') }, () => {
  it('follows the video (PCK@0.2 by reprojection >= 0.9), constant bones, planted feet still; files valid', async () => {
    const dir = join(tmp, 's13');
    const assets = await extractMotion({
      tools: resolveTools({}),
      videoFile: mediaPath('videos/liveportrait--s13.mp4'),
      outDir: dir,
      smoothing: true,
    });
    // As the motion.glb job does: BlazePose's world landmarks on crops from the stored 2D track.
    const world = await measureWorldDepth({
      tools: resolveTools({}),
      videoFile: join(dir, assets.sourceVideoFile!),
      track: assets.track,
      stride: WORLD_STRIDE,
    });
    assert.equal(world.length, assets.track.frameCount);
    assert.ok(
      world.every((w) => w !== null && w.length === LIFTED_POINTS),
      'a measurement (or an interpolated one) for every frame',
    );
    // The world points are read with their own stride (3) and turned into frame axes: seen from the
    // front (x, -y) and fitted with one scale and offset per clip, they land on the 2D track.
    assert.ok(
      worldAgreement(world, assets.track) >= 0.8,
      `world landmarks agree with the 2D track on ${worldAgreement(world, assets.track).toFixed(3)} of the joints`,
    );
    const clips = motionClips(assets.track, { jointSet: 'body', smoothing: true }, world);
    for (const clip of [clips.metahuman, clips.mixamo]) {
      const pck = reprojectionPck(clip, assets.track);
      assert.ok(pck >= 0.9, `${clip.skeleton.id} PCK@0.2 ${pck.toFixed(3)}`);
      assert.ok(boneLengthVariation(clip) < 0.01, `bone length variation ${boneLengthVariation(clip)}`);
      assert.ok(plantedFootSlide(clip) < 0.02, `planted foot slide ${plantedFootSlide(clip)} m`);
    }
    await writeMotion3d(clips, dir);
    await checkExports(dir, clips, assets.track.fps, assets.track.frameCount, assimpMissing === false);

    // The face mesh on the same key frames (expression and full): a face in every frame of this
    // portrait clip, with measures of a human face (in inter-ocular distances).
    const measured = await measureVideo3d({
      tools: resolveTools({}),
      videoFile: join(dir, assets.sourceVideoFile!),
      track: assets.track,
      stride: WORLD_STRIDE,
      face: true,
    });
    assert.ok(
      measured.faces!.every((f) => f !== null),
      'a face measure for every frame',
    );
    for (const f of measured.faces!) {
      assert.ok(f!.eye.every((e) => e > 0.1 && e < 0.6) && f!.mouthWidth > 0.3 && f!.mouthWidth < 0.9, JSON.stringify(f));
      assert.ok(f!.mouthOpen >= 0 && f!.mouthOpen < 0.6 && f!.brow.every((b) => b > 0.2 && b < 1), JSON.stringify(f));
    }
    const expr = motionClips(assets.track, { jointSet: 'expression', smoothing: true }, measured.depth, measured.faces);
    assert.ok(boneLengthVariation(expr.metahuman) < 0.01);
    assert.ok(reprojectionPck(expr.metahuman, assets.track) >= 0.9);
  });
});

describe('FBX read-back', { skip: assimpMissing }, () => {
  it('assimp is present (otherwise the FBX checks above were skipped)', () => assert.ok(true));
});
