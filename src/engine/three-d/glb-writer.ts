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
    for (let t = 0; t < frames; t++) {
      const o = (t * n + i) * 4;
      const r = clip.rotations;
      let x = r[o],
        y = r[o + 1],
        z = r[o + 2],
        w = r[o + 3];
      // Keep consecutive keys in one hemisphere so linear interpolation takes the short way.
      if (t > 0 && x * rot[t * 4 - 4] + y * rot[t * 4 - 3] + z * rot[t * 4 - 2] + w * rot[t * 4 - 1] < 0) {
        x = -x;
        y = -y;
        z = -z;
        w = -w;
      }
      const len = Math.sqrt(x * x + y * y + z * z + w * w) || 1;
      rot[t * 4] = x / len;
      rot[t * 4 + 1] = y / len;
      rot[t * 4 + 2] = z / len;
      rot[t * 4 + 3] = w / len;
      if (Math.abs(x / len) > STATIC_EPS || Math.abs(y / len) > STATIC_EPS || Math.abs(z / len) > STATIC_EPS) moving = true;
    }
    if (moving) addChannel('rotation', 'VEC4', rot, i);
    if (i === sk.rootMotionJoint || i === sk.hipsJoint || sk.joints[i].control) {
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
