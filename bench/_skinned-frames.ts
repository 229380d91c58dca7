/**
 * Looks at an exported motion the way a 3D tool would: reads the glb back (gltf-transform), builds a
 * skinned test mesh on its skin (a box around every bone, each vertex bound to the bone's joint
 * through the file's inverse bind matrices), poses it from the file's animation at a few frames and
 * rasterises it on the CPU (z-buffer, flat shading, orthographic, front and 30-degree side view).
 * Only what the file says is used: no engine code, so a wrong hierarchy, bind matrix or key shows.
 */
import { NodeIO, type Node } from '@gltf-transform/core';
import sharp from 'sharp';

type M4 = Float64Array;

function mat(t: ArrayLike<number>, r: ArrayLike<number>, s: ArrayLike<number>): M4 {
  const [x, y, z, w] = [r[0], r[1], r[2], r[3]];
  const m = new Float64Array(16);
  m[0] = (1 - 2 * (y * y + z * z)) * s[0];
  m[1] = 2 * (x * y + z * w) * s[0];
  m[2] = 2 * (x * z - y * w) * s[0];
  m[4] = 2 * (x * y - z * w) * s[1];
  m[5] = (1 - 2 * (x * x + z * z)) * s[1];
  m[6] = 2 * (y * z + x * w) * s[1];
  m[8] = 2 * (x * z + y * w) * s[2];
  m[9] = 2 * (y * z - x * w) * s[2];
  m[10] = (1 - 2 * (x * x + y * y)) * s[2];
  m[12] = t[0];
  m[13] = t[1];
  m[14] = t[2];
  m[15] = 1;
  return m;
}

function mul(a: M4, b: M4): M4 {
  const o = new Float64Array(16);
  for (let c = 0; c < 4; c++)
    for (let r = 0; r < 4; r++) {
      let v = 0;
      for (let k = 0; k < 4; k++) v += a[k * 4 + r] * b[c * 4 + k];
      o[c * 4 + r] = v;
    }
  return o;
}

function apply(m: M4, p: number[]): number[] {
  return [0, 1, 2].map((r) => m[r] * p[0] + m[4 + r] * p[1] + m[8 + r] * p[2] + m[12 + r]);
}

/** The node's animated local TRS at key `k` (keys are one per frame in our exports). */
function localAt(node: Node, k: number, channels: Map<Node, Map<string, Float32Array>>): M4 {
  const ch = channels.get(node);
  const pick = (path: string, size: number, def: number[]) => {
    const v = ch?.get(path);
    if (!v) return def;
    const n = v.length / size;
    const i = Math.min(n - 1, k);
    return Array.from(v.subarray(i * size, i * size + size));
  };
  return mat(pick('translation', 3, node.getTranslation()), pick('rotation', 4, node.getRotation()), node.getScale());
}

export async function renderSkinnedFrames(glb: Uint8Array, keys: number[], size = 360): Promise<Buffer> {
  const doc = await new NodeIO().readBinary(glb);
  const skin = doc.getRoot().listSkins()[0];
  const joints = skin.listJoints();
  const ibm = skin.getInverseBindMatrices()!.getArray()!;
  const channels = new Map<Node, Map<string, Float32Array>>();
  for (const anim of doc.getRoot().listAnimations())
    for (const c of anim.listChannels()) {
      const node = c.getTargetNode()!;
      if (!channels.has(node)) channels.set(node, new Map());
      channels.get(node)!.set(c.getTargetPath()!, c.getSampler()!.getOutput()!.getArray() as Float32Array);
    }
  const index = new Map(joints.map((j, i) => [j, i]));
  const parentOf = (j: Node) => j.getParentNode();
  const worldAt = (k: number): M4[] => {
    const cache = new Map<Node, M4>();
    const world = (j: Node): M4 => {
      const hit = cache.get(j);
      if (hit) return hit;
      const p = parentOf(j);
      const m = p ? mul(world(p), localAt(j, k, channels)) : localAt(j, k, channels);
      cache.set(j, m);
      return m;
    };
    return joints.map(world);
  };
  // The test mesh, in bind (rest) space: a box from each joint to each child, bound to the joint.
  const restWorld = joints.map((_, i) => {
    // Rest rotations are identity in our exports; in general this is the inverse of the matrix.
    const inv = Array.from(ibm.subarray(i * 16, i * 16 + 16) as ArrayLike<number>);
    return [-inv[12], -inv[13], -inv[14]];
  });
  const tris: { v: number[][]; joint: number }[] = [];
  joints.forEach((j, c) => {
    const p = parentOf(j);
    if (!p || !index.has(p)) return;
    const pi = index.get(p)!;
    const a = restWorld[pi];
    const b = restWorld[c];
    const len = Math.hypot(b[0] - a[0], b[1] - a[1], b[2] - a[2]);
    if (len < 1e-4) return;
    const r = Math.max(0.012, Math.min(0.06, len * 0.18));
    const d = [(b[0] - a[0]) / len, (b[1] - a[1]) / len, (b[2] - a[2]) / len];
    const up = Math.abs(d[1]) < 0.9 ? [0, 1, 0] : [1, 0, 0];
    const u = norm(cross(d, up));
    const w = cross(d, u);
    const corner = (e: number[], su: number, sw: number) => [0, 1, 2].map((k) => e[k] + r * (su * u[k] + sw * w[k]));
    const ring = (e: number[]) => [corner(e, 1, 1), corner(e, -1, 1), corner(e, -1, -1), corner(e, 1, -1)];
    const A = ring(a);
    const B = ring(b);
    for (let k = 0; k < 4; k++) {
      const k2 = (k + 1) % 4;
      tris.push({ v: [A[k], A[k2], B[k2]], joint: pi }, { v: [A[k], B[k2], B[k]], joint: pi });
    }
  });
  const frames: Buffer[] = [];
  for (const k of keys) {
    const world = worldAt(k);
    const skinM = world.map((m, i) => mul(m, Float64Array.from(ibm.subarray(i * 16, i * 16 + 16) as ArrayLike<number>)));
    for (const yaw of [0, 30])
      frames.push(
        raster(
          tris.map((t) => t.v.map((p) => apply(skinM[t.joint], p))),
          yaw,
          size,
        ),
      );
  }
  const cols = 2;
  const rows = keys.length;
  return sharp({ create: { width: size * cols, height: size * rows, channels: 3, background: '#ffffff' } })
    .composite(
      frames.map((f, i) => ({
        input: f,
        raw: { width: size, height: size, channels: 3 },
        left: (i % cols) * size,
        top: Math.floor(i / cols) * size,
      })),
    )
    .png()
    .toBuffer();
}

function cross(a: number[], b: number[]): number[] {
  return [a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]];
}
function norm(a: number[]): number[] {
  const l = Math.hypot(a[0], a[1], a[2]) || 1;
  return a.map((x) => x / l);
}

/** Orthographic z-buffered flat-shaded triangles, camera looking at the figure's front (-Z), turned by yaw. */
function raster(tris: number[][][], yawDeg: number, size: number): Buffer {
  const c = Math.cos((yawDeg * Math.PI) / 180);
  const s = Math.sin((yawDeg * Math.PI) / 180);
  const view = tris.map((t) => t.map((p) => [c * p[0] + s * p[2], p[1], -s * p[0] + c * p[2]]));
  const all = view.flat();
  const ys = all.map((p) => p[1]);
  const xs = all.map((p) => p[0]);
  const cx = (Math.min(...xs) + Math.max(...xs)) / 2;
  const minY = Math.min(...ys);
  const scale = (0.9 * size) / Math.max(1.9, Math.max(...ys) - minY);
  const img = Buffer.alloc(size * size * 3, 255);
  const zbuf = new Float64Array(size * size).fill(-Infinity);
  for (let y = 0; y < size; y += 20) for (let x = 0; x < size; x++) img.fill(230, (y * size + x) * 3, (y * size + x) * 3 + 3);
  for (const t of view) {
    const P = t.map((p) => [size / 2 + (p[0] - cx) * scale, size * 0.95 - (p[1] - minY) * scale, p[2]]);
    const n = norm(
      cross([t[1][0] - t[0][0], t[1][1] - t[0][1], t[1][2] - t[0][2]], [t[2][0] - t[0][0], t[2][1] - t[0][1], t[2][2] - t[0][2]]),
    );
    const shade = Math.round(60 + 180 * Math.abs(n[2]));
    const x0 = Math.max(0, Math.floor(Math.min(P[0][0], P[1][0], P[2][0])));
    const x1 = Math.min(size - 1, Math.ceil(Math.max(P[0][0], P[1][0], P[2][0])));
    const y0 = Math.max(0, Math.floor(Math.min(P[0][1], P[1][1], P[2][1])));
    const y1 = Math.min(size - 1, Math.ceil(Math.max(P[0][1], P[1][1], P[2][1])));
    const area = (P[1][0] - P[0][0]) * (P[2][1] - P[0][1]) - (P[2][0] - P[0][0]) * (P[1][1] - P[0][1]);
    if (Math.abs(area) < 1e-9) continue;
    for (let y = y0; y <= y1; y++)
      for (let x = x0; x <= x1; x++) {
        const w0 = ((P[1][0] - x) * (P[2][1] - y) - (P[2][0] - x) * (P[1][1] - y)) / area;
        const w1 = ((P[2][0] - x) * (P[0][1] - y) - (P[0][0] - x) * (P[2][1] - y)) / area;
        const w2 = 1 - w0 - w1;
        if (w0 < 0 || w1 < 0 || w2 < 0) continue;
        const z = w0 * P[0][2] + w1 * P[1][2] + w2 * P[2][2];
        const o = y * size + x;
        if (z <= zbuf[o]) continue;
        zbuf[o] = z;
        img[o * 3] = Math.round(shade * 0.55);
        img[o * 3 + 1] = Math.round(shade * 0.7);
        img[o * 3 + 2] = shade;
      }
  }
  return img;
}
