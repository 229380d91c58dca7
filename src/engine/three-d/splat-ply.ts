/**
 * The vsplat file: a standard 3D Gaussian Splatting binary PLY (little endian), one `vertex` element
 * with x y z, nx ny nz, f_dc_0..2, opacity, scale_0..2, rot_0..3 (w first), all float32, which splat
 * viewers read as is; the skinning rides along without disturbing them: four extra per-splat
 * properties (joint_0..3 as ushort, weight_0..3 as float), which viewers ignore, and the skeleton in
 * `comment joint <index> <parent> <x> <y> <z> <name>` header lines, which every PLY reader skips.
 */
import type { SplatCloud } from './splat-build.js';

const FLOAT_PROPS = [
  'x',
  'y',
  'z',
  'nx',
  'ny',
  'nz',
  'f_dc_0',
  'f_dc_1',
  'f_dc_2',
  'opacity',
  'scale_0',
  'scale_1',
  'scale_2',
  'rot_0',
  'rot_1',
  'rot_2',
  'rot_3',
];
const STRIDE = FLOAT_PROPS.length * 4 + 4 * 2 + 4 * 4;
if (new Uint8Array(new Uint16Array([1]).buffer)[0] !== 1) throw new Error('the PLY encoder needs a little-endian machine');

export function encodeSplatPly(c: SplatCloud, jointSet: string): Buffer {
  const lines = [
    'ply',
    'format binary_little_endian 1.0',
    'comment Marionette vsplat: 3D Gaussian splats (SH degree 0) skinned to a skeleton',
    `comment joint_set ${jointSet}`,
    ...c.joints.map((j, i) => `comment joint ${i} ${j.parent} ${j.position.map((v) => v.toFixed(5)).join(' ')} ${j.name}`),
    `element vertex ${c.count}`,
    ...FLOAT_PROPS.map((p) => `property float ${p}`),
    ...[0, 1, 2, 3].map((k) => `property ushort joint_${k}`),
    ...[0, 1, 2, 3].map((k) => `property float weight_${k}`),
    'end_header',
  ];
  const header = Buffer.from(lines.join('\n') + '\n', 'ascii');
  // One record is 23 four-byte slots (92 bytes): 17 floats, 4 ushorts in two slots, 4 floats.
  // Written through typed views of one aligned buffer (little endian, as declared; checked below).
  const slots = STRIDE / 4;
  const ab = new ArrayBuffer(c.count * STRIDE);
  const f32 = new Float32Array(ab);
  const u16 = new Uint16Array(ab);
  for (let i = 0; i < c.count; i++) {
    const o = i * slots;
    f32[o] = c.positions[i * 3];
    f32[o + 1] = c.positions[i * 3 + 1];
    f32[o + 2] = c.positions[i * 3 + 2];
    f32[o + 3] = 0;
    f32[o + 4] = 0;
    f32[o + 5] = 0;
    f32[o + 6] = c.dc[i * 3];
    f32[o + 7] = c.dc[i * 3 + 1];
    f32[o + 8] = c.dc[i * 3 + 2];
    f32[o + 9] = c.opacities[i];
    f32[o + 10] = c.scales[i * 3];
    f32[o + 11] = c.scales[i * 3 + 1];
    f32[o + 12] = c.scales[i * 3 + 2];
    f32[o + 13] = c.rotations[i * 4];
    f32[o + 14] = c.rotations[i * 4 + 1];
    f32[o + 15] = c.rotations[i * 4 + 2];
    f32[o + 16] = c.rotations[i * 4 + 3];
    for (let k = 0; k < 4; k++) u16[(o + 17) * 2 + k] = c.jointIndices[i * 4 + k];
    for (let k = 0; k < 4; k++) f32[o + 19 + k] = c.jointWeights[i * 4 + k];
  }
  const body = Buffer.from(ab);
  return Buffer.concat([header, body]);
}

export interface PlyLayout {
  format: string;
  vertexCount: number;
  properties: Array<{ type: string; name: string }>;
  comments: string[];
  /** Byte offset of the binary body. */
  bodyOffset: number;
}

/** Reads a binary PLY header (any writer's) and returns its layout. */
export function readPlyHeader(buf: Buffer): PlyLayout {
  const end = buf.indexOf('end_header\n');
  if (buf.subarray(0, 4).toString('ascii') !== 'ply\n' || end < 0) throw new Error('not a PLY file');
  const lines = buf.subarray(0, end).toString('ascii').split('\n');
  const out: PlyLayout = { format: '', vertexCount: 0, properties: [], comments: [], bodyOffset: end + 'end_header\n'.length };
  let inVertex = false;
  for (const l of lines) {
    const [kw, ...rest] = l.split(' ');
    if (kw === 'format') out.format = rest[0];
    else if (kw === 'comment') out.comments.push(rest.join(' '));
    else if (kw === 'element') {
      inVertex = rest[0] === 'vertex';
      if (inVertex) out.vertexCount = Number(rest[1]);
    } else if (kw === 'property' && inVertex) out.properties.push({ type: rest[0], name: rest[1] });
  }
  return out;
}

/** Decodes our own vsplat PLY back into a cloud (for the thumbnail and checks). */
export function decodeSplatPly(buf: Buffer): SplatCloud {
  const layout = readPlyHeader(buf);
  const n = layout.vertexCount;
  const joints = layout.comments
    .filter((c) => c.startsWith('joint '))
    .map((c) => {
      const [, , parent, x, y, z, name] = c.split(' ');
      return { name, parent: Number(parent), position: [Number(x), Number(y), Number(z)] as [number, number, number] };
    });
  const c: SplatCloud = {
    count: n,
    positions: new Float32Array(n * 3),
    scales: new Float32Array(n * 3),
    rotations: new Float32Array(n * 4),
    opacities: new Float32Array(n),
    dc: new Float32Array(n * 3),
    jointIndices: new Uint16Array(n * 4),
    jointWeights: new Float32Array(n * 4),
    joints,
    metresPerPixel: 0,
    origin: { x: 0, y: 0 },
  };
  for (let i = 0; i < n; i++) {
    let o = layout.bodyOffset + i * STRIDE;
    const f = () => {
      const v = buf.readFloatLE(o);
      o += 4;
      return v;
    };
    c.positions.set([f(), f(), f()], i * 3);
    o += 12;
    c.dc.set([f(), f(), f()], i * 3);
    c.opacities[i] = f();
    c.scales.set([f(), f(), f()], i * 3);
    c.rotations.set([f(), f(), f(), f()], i * 4);
    for (let k = 0; k < 4; k++) {
      c.jointIndices[i * 4 + k] = buf.readUInt16LE(o);
      o += 2;
    }
    for (let k = 0; k < 4; k++) c.jointWeights[i * 4 + k] = f();
  }
  return c;
}
