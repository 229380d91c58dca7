/**
 * A minimal binary FBX encoder (version 7400), written from the format's public description:
 * a 27-byte header, then node records. A record is [end offset u32][property count u32]
 * [property bytes u32][name length u8][name][properties][children][13 zero bytes if it has
 * children]; the top level ends with a zero record. Property codes used here: I i32, L i64, D f64,
 * S string, C bool, and the uncompressed arrays i, l, f, d ([count u32][encoding 0][bytes u32][data]).
 */
export type FbxProp =
  | { t: 'I'; v: number }
  | { t: 'L'; v: bigint | number }
  | { t: 'D'; v: number }
  | { t: 'C'; v: boolean }
  | { t: 'S'; v: string }
  | { t: 'i'; v: ArrayLike<number> }
  | { t: 'l'; v: ArrayLike<bigint> }
  | { t: 'f'; v: ArrayLike<number> }
  | { t: 'd'; v: ArrayLike<number> };

export interface FbxNode {
  name: string;
  props: FbxProp[];
  children: FbxNode[];
}

export const node = (name: string, props: FbxProp[] = [], children: FbxNode[] = []): FbxNode => ({ name, props, children });
export const I = (v: number): FbxProp => ({ t: 'I', v });
export const L = (v: bigint | number): FbxProp => ({ t: 'L', v });
export const D = (v: number): FbxProp => ({ t: 'D', v });
export const S = (v: string): FbxProp => ({ t: 'S', v });
export const C = (v: boolean): FbxProp => ({ t: 'C', v });

export const FBX_VERSION = 7400;
if (new Uint8Array(new Uint16Array([1]).buffer)[0] !== 1) throw new Error('the FBX encoder needs a little-endian machine');
const SENTINEL = 13;

function propBytes(p: FbxProp): Buffer {
  switch (p.t) {
    case 'I': {
      const b = Buffer.alloc(5);
      b.write('I', 0, 'latin1');
      b.writeInt32LE(p.v, 1);
      return b;
    }
    case 'L': {
      const b = Buffer.alloc(9);
      b.write('L', 0, 'latin1');
      b.writeBigInt64LE(BigInt(p.v), 1);
      return b;
    }
    case 'D': {
      const b = Buffer.alloc(9);
      b.write('D', 0, 'latin1');
      b.writeDoubleLE(p.v, 1);
      return b;
    }
    case 'C':
      return Buffer.from([0x43, p.v ? 1 : 0]);
    case 'S': {
      const s = Buffer.from(p.v, 'utf8');
      const b = Buffer.alloc(5);
      b.write('S', 0, 'latin1');
      b.writeUInt32LE(s.length, 1);
      return Buffer.concat([b, s]);
    }
    default: {
      const size = p.t === 'i' || p.t === 'f' ? 4 : 8;
      const n = p.v.length;
      const head = Buffer.alloc(13);
      head.write(p.t, 0, 'latin1');
      head.writeUInt32LE(n, 1);
      head.writeUInt32LE(0, 5);
      head.writeUInt32LE(n * size, 9);
      // One typed-array copy per property (the machine is little endian, as FBX is; checked below).
      const out = Buffer.alloc(13 + n * size);
      head.copy(out, 0);
      const data = out.subarray(13);
      const view =
        p.t === 'i' ? new Int32Array(n) : p.t === 'f' ? new Float32Array(n) : p.t === 'd' ? new Float64Array(n) : new BigInt64Array(n);
      (view as { set(a: ArrayLike<number | bigint>): void }).set(p.v);
      Buffer.from(view.buffer, view.byteOffset, view.byteLength).copy(data);
      return out;
    }
  }
}

function encodeNode(n: FbxNode, offset: number, out: Buffer[]): number {
  const name = Buffer.from(n.name, 'latin1');
  if (name.length > 255) throw new RangeError(`FBX node name too long: ${n.name}`);
  const props = n.props.map(propBytes);
  const propLen = props.reduce((s, b) => s + b.length, 0);
  const head = Buffer.alloc(13 + name.length);
  out.push(head);
  let pos = offset + head.length;
  for (const b of props) out.push(b);
  pos += propLen;
  for (const c of n.children) pos = encodeNode(c, pos, out);
  if (n.children.length > 0) {
    out.push(Buffer.alloc(SENTINEL));
    pos += SENTINEL;
  }
  head.writeUInt32LE(pos, 0);
  head.writeUInt32LE(n.props.length, 4);
  head.writeUInt32LE(propLen, 8);
  head.writeUInt8(name.length, 12);
  name.copy(head, 13);
  return pos;
}

/** The whole file: header, top-level records, the closing zero record and a footer. */
export function encodeFbx(top: FbxNode[]): Buffer {
  const header = Buffer.alloc(27);
  header.write('Kaydara FBX Binary  ', 0, 'latin1');
  header.writeUInt8(0x00, 20);
  header.writeUInt8(0x1a, 21);
  header.writeUInt8(0x00, 22);
  header.writeUInt32LE(FBX_VERSION, 23);
  const out: Buffer[] = [header];
  let pos = header.length;
  for (const n of top) pos = encodeNode(n, pos, out);
  out.push(Buffer.alloc(SENTINEL));
  pos += SENTINEL;
  // Footer: padding to a 16-byte boundary, the version again, then zero padding.
  const pad = (16 - (pos % 16)) % 16;
  const footer = Buffer.alloc(pad + 4 + 120);
  footer.writeUInt32LE(FBX_VERSION, pad);
  out.push(footer);
  return Buffer.concat(out);
}
