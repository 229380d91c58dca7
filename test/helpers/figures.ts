/**
 * Synthetic characters of the kinds users bring that the shared photos do not cover: a big-headed
 * animal in a long skirt to the ground, a caped figure holding a staff, an animal with a tail, a
 * winged figure. Drawn here as SVG with their exact keypoints, so render tests and the engine bench
 * judge the renderer, not the pose detector.
 */
import sharp from 'sharp';
import type { CharacterAssets } from '../../src/engine/index.js';
import type { CharacterAnalysis, Keypoint } from '../../src/engine/types.js';
import { writeCharacterDir } from './engine-render.js';

export const FIGURE_W = 400,
  FIGURE_H = 640;

const kp = (x: number, y: number): Keypoint => ({ x, y, score: 1 });

/** COCO-17 from the head centre and the 12 limb joints (character's left = image right). */
function body(head: [number, number], j: Record<string, [number, number]>): Keypoint[] {
  const [hx, hy] = head;
  return [
    kp(hx, hy),
    kp(hx + 12, hy - 10),
    kp(hx - 12, hy - 10),
    kp(hx + 28, hy - 4),
    kp(hx - 28, hy - 4),
    kp(...j.lSh),
    kp(...j.rSh),
    kp(...j.lEl),
    kp(...j.rEl),
    kp(...j.lWr),
    kp(...j.rWr),
    kp(...j.lHip),
    kp(...j.rHip),
    kp(...j.lKn),
    kp(...j.rKn),
    kp(...j.lAn),
    kp(...j.rAn),
  ];
}

const line = (pts: Array<[number, number]>, colour: string, width: number): string =>
  `<polyline points="${pts.map((p) => p.join(',')).join(' ')}" fill="none" stroke="${colour}" stroke-width="${width}" stroke-linecap="round" stroke-linejoin="round"/>`;

const J = {
  lSh: [245, 215],
  rSh: [155, 215],
  lEl: [272, 292],
  rEl: [128, 292],
  lWr: [286, 365],
  rWr: [114, 365],
  lHip: [224, 350],
  rHip: [176, 350],
  lKn: [228, 470],
  rKn: [172, 470],
  lAn: [230, 585],
  rAn: [170, 585],
} as Record<string, [number, number]>;

export type FigureKind = 'long-skirt' | 'cape-staff' | 'tail' | 'wings';
export const FIGURE_KINDS: FigureKind[] = ['long-skirt', 'cape-staff', 'tail', 'wings'];

/** SVG and keypoints of one synthetic figure (transparent background). */
export function figureSvg(kind: FigureKind): { svg: string; body: Keypoint[] } {
  const arms = (sleeve: string, skin: string): string =>
    [J.lSh, J.rSh]
      .map((sh, i) => {
        const el = i ? J.rEl : J.lEl,
          wr = i ? J.rWr : J.lWr;
        return `${line([sh, el, wr], '#222', 36)}${line([sh, el, wr], sleeve, 30)}<circle cx="${wr[0]}" cy="${wr[1] + 8}" r="17" fill="${skin}" stroke="#222" stroke-width="3"/>`;
      })
      .join('');
  const legs = (colour: string): string =>
    `${line([J.lHip, J.lKn, J.lAn], '#222', 34)}${line([J.lHip, J.lKn, J.lAn], colour, 28)}${line([J.rHip, J.rKn, J.rAn], '#222', 34)}${line([J.rHip, J.rKn, J.rAn], colour, 28)}`;
  const feet = (colour: string): string =>
    `<ellipse cx="${J.lAn[0] + 12}" cy="${J.lAn[1] + 14}" rx="30" ry="14" fill="${colour}" stroke="#222" stroke-width="3"/><ellipse cx="${J.rAn[0] - 12}" cy="${J.rAn[1] + 14}" rx="30" ry="14" fill="${colour}" stroke="#222" stroke-width="3"/>`;
  const torso = (colour: string): string =>
    `<rect x="186" y="160" width="28" height="50" fill="${colour}" stroke="#222" stroke-width="4"/><path d="M 150,205 Q 200,190 250,205 L 236,360 L 164,360 Z" fill="${colour}" stroke="#222" stroke-width="4"/>`;
  let svg: string;
  let head: [number, number] = [200, 130];
  if (kind === 'long-skirt') {
    // A rabbit with a big head and long ears, in a long, gently flared skirt to the ground: only the
    // toes show under the hem.
    svg = `${feet('#f2f2f2')}
      <path d="M 168,330 L 232,330 L 282,598 Q 200,612 118,598 Z" fill="#2f6f4f" stroke="#222" stroke-width="4"/>
      <path d="M 150,470 Q 200,480 250,470" stroke="#1d4a33" stroke-width="4" fill="none"/>
      ${torso('#e9d8a6')}${arms('#e9d8a6', '#f2f2f2')}
      <ellipse cx="176" cy="52" rx="20" ry="46" fill="#f2f2f2" stroke="#222" stroke-width="4"/>
      <ellipse cx="224" cy="52" rx="20" ry="46" fill="#f2f2f2" stroke="#222" stroke-width="4"/>
      <circle cx="200" cy="130" r="66" fill="#f2f2f2" stroke="#222" stroke-width="5"/>
      <circle cx="178" cy="120" r="8" fill="#222"/><circle cx="222" cy="120" r="8" fill="#222"/>
      <ellipse cx="200" cy="150" rx="10" ry="7" fill="#e88"/>`;
  } else if (kind === 'cape-staff') {
    // A caped figure: the cape hangs behind from the shoulders to mid-shin and shows between the
    // legs; a staff in the right hand reaches the ground.
    svg = `<path d="M 150,210 L 250,210 L 300,540 Q 200,560 100,540 Z" fill="#8b1e2d" stroke="#222" stroke-width="4"/>
      ${legs('#3a3a5a')}${feet('#5a3a1a')}${torso('#c9b037')}
      <line x1="104" y1="200" x2="122" y2="600" stroke="#6b4a2a" stroke-width="10" stroke-linecap="round"/>
      <circle cx="103" cy="196" r="14" fill="#6fd0ff" stroke="#222" stroke-width="3"/>
      ${arms('#c9b037', '#e0b48a')}
      <circle cx="200" cy="135" r="52" fill="#e0b48a" stroke="#222" stroke-width="5"/>
      <circle cx="182" cy="128" r="6" fill="#222"/><circle cx="218" cy="128" r="6" fill="#222"/>`;
  } else if (kind === 'tail') {
    // A fox standing like a person, with a bushy tail out to its right side and down to the ground.
    svg = `<path d="M 180,330 Q 90,340 70,440 Q 60,520 110,560 Q 100,480 140,430 Q 170,390 200,360 Z" fill="#d9702a" stroke="#222" stroke-width="4"/>
      <path d="M 110,560 Q 80,530 78,490 Q 95,520 118,540 Z" fill="#fff"/>
      ${legs('#d9702a')}${feet('#3a2a1a')}${torso('#d9702a')}${arms('#d9702a', '#3a2a1a')}
      <path d="M 150,100 L 160,40 L 190,85 Z M 250,100 L 240,40 L 210,85 Z" fill="#d9702a" stroke="#222" stroke-width="4"/>
      <ellipse cx="200" cy="135" rx="58" ry="50" fill="#d9702a" stroke="#222" stroke-width="5"/>
      <path d="M 170,150 Q 200,200 230,150 Z" fill="#fff"/>
      <circle cx="180" cy="122" r="6" fill="#222"/><circle cx="220" cy="122" r="6" fill="#222"/>`;
    head = [200, 135];
  } else {
    // A winged figure: feathered wings behind the shoulders, spreading above and beside the arms.
    svg = `<path d="M 170,230 Q 60,120 20,160 Q 40,260 70,330 Q 120,300 175,270 Z" fill="#eee" stroke="#222" stroke-width="4"/>
      <path d="M 230,230 Q 340,120 380,160 Q 360,260 330,330 Q 280,300 225,270 Z" fill="#eee" stroke="#222" stroke-width="4"/>
      ${legs('#4a6fa5')}${feet('#333')}${torso('#f0f0ff')}${arms('#f0f0ff', '#f1c27d')}
      <circle cx="200" cy="135" r="52" fill="#f1c27d" stroke="#222" stroke-width="5"/>
      <circle cx="182" cy="128" r="6" fill="#222"/><circle cx="218" cy="128" r="6" fill="#222"/>`;
  }
  return {
    svg: `<svg xmlns="http://www.w3.org/2000/svg" width="${FIGURE_W}" height="${FIGURE_H}">${svg}</svg>`,
    body: body(head, J),
  };
}

/** The figure's analysis (exact keypoints, alpha mask) and its RGBA texture. */
export async function figureTexture(kind: FigureKind): Promise<{ analysis: CharacterAnalysis; png: Buffer }> {
  const { svg, body: kps } = figureSvg(kind);
  const png = await sharp(Buffer.from(svg)).png().toBuffer();
  const analysis: CharacterAnalysis = {
    version: 1,
    width: FIGURE_W,
    height: FIGURE_H,
    maskMethod: 'alpha',
    body: kps,
    poseMethod: 'model',
    crop: { x: 0, y: 0, width: FIGURE_W, height: FIGURE_H },
  };
  return { analysis, png };
}

/** A character directory (texture, analysis, rig) for one synthetic figure. */
export async function figureCharacter(kind: FigureKind, dir: string): Promise<CharacterAssets> {
  const { analysis, png } = await figureTexture(kind);
  return writeCharacterDir(dir, analysis, png);
}
