/**
 * A skeletal clip as binary glTF 2.0: the joint hierarchy as nodes (rest pose in their
 * translations), one skin listing the joints with their inverse bind matrices, and one animation.
 * Joints whose local rotation never leaves the rest pose get no channel (a full facial rig would
 * otherwise carry hundreds of constant curves).
 */
import { Document, NodeIO, type Node } from '@gltf-transform/core';
import { restOffset } from './skeletons.js';
import type { SkeletalClip } from './motion3d.js';

const STATIC_EPS = 1e-5;

export async function writeGlb(clip: SkeletalClip, name: string): Promise<Uint8Array> {
  const sk = clip.skeleton;
  const n = sk.joints.length;
  const doc = new Document();
  doc.getRoot().getAsset().generator = 'Marionette';
  const buffer = doc.createBuffer();
  const scene = doc.createScene(name);
  const nodes: Node[] = sk.joints.map((j, i) => doc.createNode(j.name).setTranslation(restOffset(sk, i)));
  sk.joints.forEach((j, i) => (j.parent < 0 ? scene.addChild(nodes[i]) : nodes[j.parent].addChild(nodes[i])));

  const ibm = new Float32Array(n * 16);
  sk.joints.forEach((j, i) => {
    // Rest rotations are identity, so each inverse bind matrix is a translation by minus the rest position.
    ibm.set([1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, -j.rest[0], -j.rest[1], -j.rest[2], 1], i * 16);
  });
  const skin = doc
    .createSkin(`${name}-skin`)
    .setSkeleton(nodes[0])
    .setInverseBindMatrices(doc.createAccessor().setType('MAT4').setArray(ibm).setBuffer(buffer));
  nodes.forEach((node) => skin.addJoint(node));

  const frames = clip.frameCount;
  const times = new Float32Array(frames);
  for (let t = 0; t < frames; t++) times[t] = t / clip.fps;
  const input = doc.createAccessor().setType('SCALAR').setArray(times).setBuffer(buffer);
  const anim = doc.createAnimation(name);
  for (let i = 0; i < n; i++) {
    const rot = new Float32Array(frames * 4);
    let moving = false;
    let prev: number[] | null = null;
    for (let t = 0; t < frames; t++) {
      const o = (t * n + i) * 4;
      let q = [clip.rotations[o], clip.rotations[o + 1], clip.rotations[o + 2], clip.rotations[o + 3]];
      // Keep consecutive keys in one hemisphere so linear interpolation takes the short way.
      if (prev && q[0] * prev[0] + q[1] * prev[1] + q[2] * prev[2] + q[3] * prev[3] < 0) q = q.map((c) => -c);
      const len = Math.hypot(q[0], q[1], q[2], q[3]) || 1;
      q = q.map((c) => c / len);
      rot.set(q, t * 4);
      prev = q;
      if (Math.abs(q[0]) > STATIC_EPS || Math.abs(q[1]) > STATIC_EPS || Math.abs(q[2]) > STATIC_EPS) moving = true;
    }
    if (moving) addChannel('rotation', 'VEC4', rot, i);
    if (i === sk.rootMotionJoint || i === sk.hipsJoint) {
      const tr = new Float32Array(frames * 3);
      for (let t = 0; t < frames; t++) tr.set(clip.translations.subarray((t * n + i) * 3, (t * n + i) * 3 + 3), t * 3);
      addChannel('translation', 'VEC3', tr, i);
    }
  }

  function addChannel(path: 'rotation' | 'translation', type: 'VEC4' | 'VEC3', values: Float32Array, joint: number): void {
    const sampler = doc
      .createAnimationSampler()
      .setInput(input)
      .setOutput(doc.createAccessor().setType(type).setArray(values).setBuffer(buffer))
      .setInterpolation('LINEAR');
    anim.addSampler(sampler).addChannel(doc.createAnimationChannel().setTargetNode(nodes[joint]).setTargetPath(path).setSampler(sampler));
  }

  return new NodeIO().writeBinary(doc);
}
