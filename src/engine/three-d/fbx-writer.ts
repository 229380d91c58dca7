/**
 * A skeletal clip as binary FBX 7.4: one LimbNode Model (with its Skeleton NodeAttribute) per joint,
 * parented by OO connections, and one AnimationStack/AnimationLayer whose curve nodes drive
 * `Lcl Rotation` (Euler XYZ degrees, FBX's default order) of every moving joint and `Lcl
 * Translation` of the root-motion and hips joints. Axes are glTF's (Y up, Z front, X right-handed)
 * declared in GlobalSettings; lengths are centimetres (UnitScaleFactor 1), as Mixamo and Unreal use.
 */
import { C, D, encodeFbx, I, L, node, S, type FbxNode, type FbxProp } from './fbx-binary.js';
import { qtoEulerXYZ, type Quat } from './math3d.js';
import type { SkeletalClip } from './motion3d.js';
import { restOffset } from './skeletons.js';

/** FBX time unit: ticks per second. */
export const FBX_TICKS_PER_SECOND = 46186158000n;
const CM = 100;
/** GlobalSettings TimeMode value meaning "custom frame rate" (CustomFrameRate holds it). */
const TIME_MODE_CUSTOM = 14;

const P = (name: string, type: string, label: string, flags: string, ...values: FbxProp[]): FbxNode =>
  node('P', [S(name), S(type), S(label), S(flags), ...values]);
const objName = (name: string, cls: string) => S(`${name}\u0000\u0001${cls}`);

export function writeFbx(clip: SkeletalClip, takeName: string): Buffer {
  const sk = clip.skeleton;
  const n = sk.joints.length;
  const frames = clip.frameCount;
  const keyTimes = Array.from({ length: frames }, (_, t) => BigInt(Math.round((t * Number(FBX_TICKS_PER_SECOND)) / clip.fps)));
  const stop = keyTimes[frames - 1] ?? 0n;
  let nextId = 1000n;
  const id = () => nextId++;

  const objects: FbxNode[] = [];
  const connections: FbxNode[] = [];
  const oo = (child: bigint, parent: bigint) => connections.push(node('C', [S('OO'), L(child), L(parent)]));
  const op = (child: bigint, parent: bigint, prop: string) => connections.push(node('C', [S('OP'), L(child), L(parent), S(prop)]));

  const modelIds: bigint[] = [];
  sk.joints.forEach((j, i) => {
    const mid = id();
    const aid = id();
    modelIds.push(mid);
    const t = restOffset(sk, i).map((c) => c * CM);
    objects.push(
      node(
        'NodeAttribute',
        [L(aid), objName(j.name, 'NodeAttribute'), S('LimbNode')],
        [node('Properties70', [], [P('Size', 'double', 'Number', '', D(1))]), node('TypeFlags', [S('Skeleton')])],
      ),
      node(
        'Model',
        [L(mid), objName(j.name, 'Model'), S('LimbNode')],
        [
          node('Version', [I(232)]),
          node(
            'Properties70',
            [],
            [
              P('Lcl Translation', 'Lcl Translation', '', 'A', D(t[0]), D(t[1]), D(t[2])),
              P('Lcl Rotation', 'Lcl Rotation', '', 'A', D(0), D(0), D(0)),
              P('Lcl Scaling', 'Lcl Scaling', '', 'A', D(1), D(1), D(1)),
              P('DefaultAttributeIndex', 'int', 'Integer', '', I(0)),
            ],
          ),
          node('Shading', [C(true)]),
          node('Culling', [S('CullingOff')]),
        ],
      ),
    );
    oo(aid, mid);
    oo(mid, j.parent < 0 ? 0n : modelIds[j.parent]);
  });

  const stackId = id();
  const layerId = id();
  objects.push(
    node(
      'AnimationStack',
      [L(stackId), objName(takeName, 'AnimStack'), S('')],
      [
        node(
          'Properties70',
          [],
          [
            P('LocalStart', 'KTime', 'Time', '', L(0)),
            P('LocalStop', 'KTime', 'Time', '', L(stop)),
            P('ReferenceStart', 'KTime', 'Time', '', L(0)),
            P('ReferenceStop', 'KTime', 'Time', '', L(stop)),
          ],
        ),
      ],
    ),
    node(
      'AnimationLayer',
      [L(layerId), objName('BaseLayer', 'AnimLayer'), S('')],
      [node('Properties70', [], [P('Weight', 'Number', '', 'A', D(100))])],
    ),
  );
  oo(layerId, stackId);

  let curveNodes = 0;
  let curves = 0;
  const addCurveNode = (joint: number, prop: 'Lcl Rotation' | 'Lcl Translation', values: Float64Array[]) => {
    const cn = id();
    curveNodes++;
    objects.push(
      node(
        'AnimationCurveNode',
        [L(cn), objName(prop === 'Lcl Rotation' ? 'R' : 'T', 'AnimCurveNode'), S('')],
        [
          node(
            'Properties70',
            [],
            ['X', 'Y', 'Z'].map((a, k) => P(`d|${a}`, 'Number', '', 'A', D(values[k][0] ?? 0))),
          ),
        ],
      ),
    );
    oo(cn, layerId);
    op(cn, modelIds[joint], prop);
    ['X', 'Y', 'Z'].forEach((axis, k) => {
      const c = id();
      curves++;
      objects.push(
        node(
          'AnimationCurve',
          [L(c), objName('', 'AnimCurve'), S('')],
          [
            node('Default', [D(values[k][0] ?? 0)]),
            node('KeyVer', [I(4008)]),
            node('KeyTime', [{ t: 'l', v: keyTimes }]),
            node('KeyValueFloat', [{ t: 'f', v: values[k] }]),
            // One attribute block for all keys: linear interpolation (flag 0x4).
            node('KeyAttrFlags', [{ t: 'i', v: [4] }]),
            node('KeyAttrDataFloat', [{ t: 'f', v: [0, 0, 0, 0] }]),
            node('KeyAttrRefCount', [{ t: 'i', v: [frames] }]),
          ],
        ),
      );
      op(c, cn, `d|${axis}`);
    });
  };

  for (let i = 0; i < n; i++) {
    const euler = [new Float64Array(frames), new Float64Array(frames), new Float64Array(frames)];
    let moving = false;
    for (let t = 0; t < frames; t++) {
      const o = (t * n + i) * 4;
      const q: Quat = [clip.rotations[o], clip.rotations[o + 1], clip.rotations[o + 2], clip.rotations[o + 3]];
      const e = qtoEulerXYZ(q);
      for (let k = 0; k < 3; k++) {
        let v = e[k];
        // Unwrap so that curves interpolate through the short way between keys.
        if (t > 0) while (v - euler[k][t - 1] > 180) v -= 360;
        if (t > 0) while (v - euler[k][t - 1] < -180) v += 360;
        euler[k][t] = v;
        if (Math.abs(v) > 1e-3) moving = true;
      }
    }
    if (moving) addCurveNode(i, 'Lcl Rotation', euler);
    if (i === sk.rootMotionJoint || i === sk.hipsJoint || sk.joints[i].control) {
      const tr = [new Float64Array(frames), new Float64Array(frames), new Float64Array(frames)];
      for (let t = 0; t < frames; t++) for (let k = 0; k < 3; k++) tr[k][t] = clip.translations[(t * n + i) * 3 + k] * CM;
      addCurveNode(i, 'Lcl Translation', tr);
    }
  }

  const defs = (type: string, count: number) => node('ObjectType', [S(type)], [node('Count', [I(count)])]);
  const top: FbxNode[] = [
    node(
      'FBXHeaderExtension',
      [],
      [node('FBXHeaderVersion', [I(1003)]), node('FBXVersion', [I(7400)]), node('Creator', [S('Marionette')])],
    ),
    node(
      'GlobalSettings',
      [],
      [
        node('Version', [I(1000)]),
        node(
          'Properties70',
          [],
          [
            P('UpAxis', 'int', 'Integer', '', I(1)),
            P('UpAxisSign', 'int', 'Integer', '', I(1)),
            P('FrontAxis', 'int', 'Integer', '', I(2)),
            P('FrontAxisSign', 'int', 'Integer', '', I(1)),
            P('CoordAxis', 'int', 'Integer', '', I(0)),
            P('CoordAxisSign', 'int', 'Integer', '', I(1)),
            P('OriginalUpAxis', 'int', 'Integer', '', I(1)),
            P('OriginalUpAxisSign', 'int', 'Integer', '', I(1)),
            P('UnitScaleFactor', 'double', 'Number', '', D(1)),
            P('OriginalUnitScaleFactor', 'double', 'Number', '', D(1)),
            P('TimeMode', 'enum', '', '', I(TIME_MODE_CUSTOM)),
            P('CustomFrameRate', 'double', 'Number', '', D(clip.fps)),
            P('TimeSpanStart', 'KTime', 'Time', '', L(0)),
            P('TimeSpanStop', 'KTime', 'Time', '', L(stop)),
          ],
        ),
      ],
    ),
    node('Documents', [], [node('Count', [I(1)]), node('Document', [L(id()), S(''), S('Scene')], [node('RootNode', [L(0)])])]),
    node('References'),
    node(
      'Definitions',
      [],
      [
        node('Version', [I(100)]),
        node('Count', [I(2 * n + 2 + curveNodes + curves + 1)]),
        defs('GlobalSettings', 1),
        defs('Model', n),
        defs('NodeAttribute', n),
        defs('AnimationStack', 1),
        defs('AnimationLayer', 1),
        defs('AnimationCurveNode', curveNodes),
        defs('AnimationCurve', curves),
      ],
    ),
    node('Objects', [], objects),
    node('Connections', [], connections),
    node(
      'Takes',
      [],
      [
        node('Current', [S(takeName)]),
        node(
          'Take',
          [S(takeName)],
          [node('FileName', [S(`${takeName}.tak`)]), node('LocalTime', [L(0), L(stop)]), node('ReferenceTime', [L(0), L(stop)])],
        ),
      ],
    ),
  ];
  return encodeFbx(top);
}
