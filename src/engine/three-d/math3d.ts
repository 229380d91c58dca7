/**
 * Small vector and quaternion helpers for the 3D outputs. Quaternions are [x, y, z, w] (glTF order),
 * vectors [x, y, z]; right-handed, Y up, metres unless a caller says otherwise.
 */
export type Vec3 = [number, number, number];
export type Quat = [number, number, number, number];

export const IDENTITY: Quat = [0, 0, 0, 1];

export const add = (a: Vec3, b: Vec3): Vec3 => [a[0] + b[0], a[1] + b[1], a[2] + b[2]];
export const sub = (a: Vec3, b: Vec3): Vec3 => [a[0] - b[0], a[1] - b[1], a[2] - b[2]];
export const scale = (a: Vec3, s: number): Vec3 => [a[0] * s, a[1] * s, a[2] * s];
export const dot = (a: Vec3, b: Vec3): number => a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
export const cross = (a: Vec3, b: Vec3): Vec3 => [a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]];
export const length = (a: Vec3): number => Math.hypot(a[0], a[1], a[2]);
export const lerp3 = (a: Vec3, b: Vec3, t: number): Vec3 => [a[0] + (b[0] - a[0]) * t, a[1] + (b[1] - a[1]) * t, a[2] + (b[2] - a[2]) * t];

export function normalize(a: Vec3, fallback: Vec3 = [0, 1, 0]): Vec3 {
  const l = length(a);
  return l > 1e-9 ? [a[0] / l, a[1] / l, a[2] / l] : fallback;
}

export function qmul(a: Quat, b: Quat): Quat {
  return [
    a[3] * b[0] + a[0] * b[3] + a[1] * b[2] - a[2] * b[1],
    a[3] * b[1] - a[0] * b[2] + a[1] * b[3] + a[2] * b[0],
    a[3] * b[2] + a[0] * b[1] - a[1] * b[0] + a[2] * b[3],
    a[3] * b[3] - a[0] * b[0] - a[1] * b[1] - a[2] * b[2],
  ];
}

export const qconj = (q: Quat): Quat => [-q[0], -q[1], -q[2], q[3]];

export function qnormalize(q: Quat): Quat {
  const l = Math.hypot(q[0], q[1], q[2], q[3]);
  return l > 1e-12 ? [q[0] / l, q[1] / l, q[2] / l, q[3] / l] : [0, 0, 0, 1];
}

export function qrotate(q: Quat, v: Vec3): Vec3 {
  const u: Vec3 = [q[0], q[1], q[2]];
  const t = scale(cross(u, v), 2);
  return add(add(v, scale(t, q[3])), cross(u, t));
}

/** The shortest rotation taking unit vector `a` onto unit vector `b`. */
export function qfromTo(a: Vec3, b: Vec3): Quat {
  const d = dot(a, b);
  if (d < -0.999999) {
    let axis = cross([1, 0, 0], a);
    if (length(axis) < 1e-6) axis = cross([0, 1, 0], a);
    const n = normalize(axis);
    return [n[0], n[1], n[2], 0];
  }
  const c = cross(a, b);
  return qnormalize([c[0], c[1], c[2], 1 + d]);
}

/** Rotation from a 3x3 matrix given as its three columns (orthonormal). */
export function qfromBasis(x: Vec3, y: Vec3, z: Vec3): Quat {
  const m00 = x[0],
    m10 = x[1],
    m20 = x[2];
  const m01 = y[0],
    m11 = y[1],
    m21 = y[2];
  const m02 = z[0],
    m12 = z[1],
    m22 = z[2];
  const tr = m00 + m11 + m22;
  let q: Quat;
  if (tr > 0) {
    const s = Math.sqrt(tr + 1) * 2;
    q = [(m21 - m12) / s, (m02 - m20) / s, (m10 - m01) / s, s / 4];
  } else if (m00 > m11 && m00 > m22) {
    const s = Math.sqrt(1 + m00 - m11 - m22) * 2;
    q = [s / 4, (m01 + m10) / s, (m02 + m20) / s, (m21 - m12) / s];
  } else if (m11 > m22) {
    const s = Math.sqrt(1 + m11 - m00 - m22) * 2;
    q = [(m01 + m10) / s, s / 4, (m12 + m21) / s, (m02 - m20) / s];
  } else {
    const s = Math.sqrt(1 + m22 - m00 - m11) * 2;
    q = [(m02 + m20) / s, (m12 + m21) / s, s / 4, (m10 - m01) / s];
  }
  return qnormalize(q);
}

/** An orthonormal frame whose Y axis is `primary` and whose X axis is `secondary` made orthogonal to it. */
export function frameFrom(primary: Vec3, secondary: Vec3): Quat {
  const y = normalize(primary);
  let x = sub(secondary, scale(y, dot(secondary, y)));
  if (length(x) < 1e-6) x = cross(y, Math.abs(y[2]) < 0.9 ? [0, 0, 1] : [1, 0, 0]);
  const xn = normalize(x);
  const z = cross(xn, y);
  return qfromBasis(xn, y, z);
}

export function qslerp(a: Quat, b: Quat, t: number): Quat {
  let d = a[0] * b[0] + a[1] * b[1] + a[2] * b[2] + a[3] * b[3];
  const bb: Quat = d < 0 ? [-b[0], -b[1], -b[2], -b[3]] : b;
  d = Math.abs(d);
  if (d > 0.9995)
    return qnormalize([a[0] + (bb[0] - a[0]) * t, a[1] + (bb[1] - a[1]) * t, a[2] + (bb[2] - a[2]) * t, a[3] + (bb[3] - a[3]) * t]);
  const th = Math.acos(d);
  const s = Math.sin(th);
  const wa = Math.sin((1 - t) * th) / s;
  const wb = Math.sin(t * th) / s;
  return [a[0] * wa + bb[0] * wb, a[1] * wa + bb[1] * wb, a[2] * wa + bb[2] * wb, a[3] * wa + bb[3] * wb];
}

/** Rotation about the world Y axis by `angle` radians. */
export function qyaw(angle: number): Quat {
  return [0, Math.sin(angle / 2), 0, Math.cos(angle / 2)];
}

/**
 * FBX's default rotation order (eEulerXYZ): the node matrix is Rz·Ry·Rx, angles in degrees.
 * Returns [x, y, z] degrees.
 */
export function qtoEulerXYZ(q: Quat): Vec3 {
  const [x, y, z, w] = q;
  const m00 = 1 - 2 * (y * y + z * z);
  const m10 = 2 * (x * y + z * w);
  const m20 = 2 * (x * z - y * w);
  const m21 = 2 * (y * z + x * w);
  const m22 = 1 - 2 * (x * x + y * y);
  const b = Math.asin(Math.max(-1, Math.min(1, -m20)));
  let a: number;
  let c: number;
  if (Math.abs(m20) < 0.999999) {
    a = Math.atan2(m21, m22);
    c = Math.atan2(m10, m00);
  } else {
    // Gimbal lock: fold Z into X.
    const m01 = 2 * (x * y - z * w);
    const m11 = 1 - 2 * (x * x + z * z);
    a = Math.atan2(-m01 * Math.sign(-m20), m11);
    c = 0;
  }
  const deg = 180 / Math.PI;
  return [a * deg, b * deg, c * deg];
}
