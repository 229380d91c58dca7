/**
 * Seams between chains (rig/seams.ts): a triangle cut because it touches a third chain keeps the
 * torso–limb blend of its limb copy near that limb's pivot.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { cutSeams } from '../../src/engine/rig/seams.js';
import { MAX_INFLUENCES } from '../../src/engine/rig/weights.js';

test("a limb's copy of a cut triangle near its pivot keeps the torso's weight", () => {
  // Guards keepsTorso. One triangle where an upper arm (bone 2) leaves the torso (bone 0), its third
  // vertex the head's (bone 1): head and arm are not joined, so the triangle is cut. Before, the arm's
  // copy of vertex 1 was the arm's alone (weight 1), so the arm's start turned away from the torso it
  // blends with; now it keeps the torso's 0.3. Far from the pivot the copy stays the arm's alone.
  const weights = [
    [0, 0.7, 2, 0.3],
    [2, 0.7, 0, 0.3],
    [1, 1, 0, 0],
  ];
  const boneIdx = new Int32Array(3 * MAX_INFLUENCES),
    boneW = new Float32Array(3 * MAX_INFLUENCES);
  weights.forEach(([b0, w0, b1, w1], v) => {
    boneIdx.set([b0, b1], v * MAX_INFLUENCES);
    boneW.set([w0, w1], v * MAX_INFLUENCES);
  });
  const armCopyWeights = (pivot: { x: number; y: number }): Map<number, number> => {
    const out = cutSeams({
      xs: Float64Array.from([0, 4, 2]),
      ys: Float64Array.from([0, 0, -4]),
      triangles: Uint32Array.from([0, 1, 2]),
      triBone: Int32Array.from([0]),
      boneIdx,
      boneW,
      pivots: Array.from({ length: 10 }, () => pivot),
      keepRadius: Array.from({ length: 10 }, () => 10),
    });
    assert.equal(out.cut, 1);
    // The arm's copy of vertex 1: a vertex added at (4, 0) whose weights include bone 2.
    for (let v = 3; v < out.xs.length; v++) {
      const w = new Map<number, number>();
      for (let k = 0; k < MAX_INFLUENCES; k++)
        if (out.boneW[v * MAX_INFLUENCES + k] > 0) w.set(out.boneIdx[v * MAX_INFLUENCES + k], out.boneW[v * MAX_INFLUENCES + k]);
      if (out.xs[v] === 4 && w.has(2)) return w;
    }
    throw new Error('no arm copy of vertex 1');
  };
  const near = armCopyWeights({ x: 3, y: 0 });
  assert.ok(Math.abs((near.get(0) ?? 0) - 0.3) < 1e-6 && Math.abs((near.get(2) ?? 0) - 0.7) < 1e-6, JSON.stringify([...near]));
  const far = armCopyWeights({ x: 40, y: 0 });
  assert.deepEqual([...far], [[2, 1]]);
});
