/**
 * Prompt → scene plan for the embedded generator. The generator cannot imagine pixels; it reads the
 * prompt (and the ordered target tags) for what it knows how to play: actions (motion templates
 * over time), a setting, colours, a mood, camera moves and quoted dialogue. Everything else in the
 * prompt is kept for the record but does not change the picture. The seed picks among equally
 * plausible choices (placement, palette shades, melody, direction of travel), so the same inputs give
 * the same plan and another seed a different one.
 */
import { mulberry32 } from './random.js';

export const ACTIONS = ['idle', 'walk', 'run', 'jump', 'dance', 'wave', 'clap', 'bow', 'spin', 'kick', 'sit'] as const;
export type Action = (typeof ACTIONS)[number];

export const SETTINGS = ['studio', 'sky', 'room', 'beach', 'night', 'forest', 'city', 'snow', 'stage'] as const;
export type Setting = (typeof SETTINGS)[number];

export const CAMERA_MOVES = ['static', 'zoom-in', 'zoom-out', 'pan-left', 'pan-right', 'dolly-in', 'dolly-out'] as const;
export type CameraMove = (typeof CAMERA_MOVES)[number];

export const MOODS = ['cheerful', 'calm', 'tense', 'melancholic', 'energetic'] as const;
export type Mood = (typeof MOODS)[number];

export interface PlannedAction {
  action: Action;
  /** Start and end in seconds; consecutive actions blend over `BLEND_S` around each boundary. */
  startS: number;
  endS: number;
}

export interface ScenePlan {
  durationS: number;
  seed: number;
  actions: PlannedAction[];
  setting: Setting;
  /** Colour words found, as RGB, in order (the first tints the setting, the second accents it). */
  colours: Array<[number, number, number]>;
  mood: Mood;
  /** Beats per minute of the music, from the mood and the most energetic action. */
  tempo: number;
  camera: CameraMove;
  /** Quoted dialogue, in order. */
  dialogue: string[];
  /** Where the subject stands, as a fraction of the frame width, and which way it travels (+1 right). */
  subjectX: number;
  direction: 1 | -1;
  /** What the plan was read from, for the record. */
  words: string[];
}

/** Word stems per action; the first match of each word wins. Order of the table breaks ties. */
const ACTION_WORDS: Array<[Action, RegExp]> = [
  ['run', /^(run|runs|running|ran|jog|jogs|jogging|sprint\w*|rush\w*|race|races|racing|dash\w*)$/],
  ['walk', /^(walk\w*|stroll\w*|wander\w*|march\w*|strut\w*|step|steps|stepping|pace|paces|pacing)$/],
  ['jump', /^(jump\w*|hop|hops|hopping|leap\w*|bounce\w*|bouncing|skip|skips|skipping)$/],
  ['dance', /^(danc\w*|groov\w*|boogie\w*|shuffle\w*|disco|salsa|hip-?hop|twerk\w*|party\w*)$/],
  ['wave', /^(wave|waves|waving|waved|greet\w*|hello|hi|goodbye|bye)$/],
  ['clap', /^(clap\w*|applau\w*|cheer\w*)$/],
  ['bow', /^(bow|bows|bowing|bowed|curtsy\w*|curtsey\w*|thank\w*)$/],
  ['spin', /^(spin\w*|twirl\w*|pirouette\w*|rotat\w*|whirl\w*)$/],
  ['kick', /^(kick\w*|karate|kung-?fu|martial|punt\w*|fight\w*)$/],
  ['sit', /^(sit|sits|sitting|sat|seated|rest|rests|resting|relax\w*|chill\w*)$/],
  ['idle', /^(stand|stands|standing|stood|idle|wait\w*|pose|poses|posing|still)$/],
];

const SETTING_WORDS: Array<[Setting, RegExp]> = [
  ['beach', /^(beach\w*|sea|seaside|ocean\w*|shore\w*|sand\w*|coast\w*|waves?|surf\w*|tropical|island)$/],
  ['night', /^(night\w*|midnight|moon\w*|stars?|starry|dark|evening|dusk)$/],
  ['forest', /^(forest\w*|woods?|trees?|jungle|park|garden|meadow|grass\w*|field)$/],
  ['city', /^(city|cities|street\w*|urban|downtown|town|skyline|road|alley|rooftop)$/],
  ['snow', /^(snow\w*|winter|ice|icy|frozen|arctic|christmas)$/],
  ['stage', /^(stage|concert|theat\w*|spotlight\w*|show|performance|club)$/],
  ['room', /^(room|bedroom|kitchen|office|indoors?|inside|house|home|living|hall|library|studio-?apartment)$/],
  ['sky', /^(sky|skies|clouds?|cloudy|sunny|sun|sunshine|outdoors?|outside|hill\w*|mountain\w*|day|daylight|morning)$/],
];

const COLOUR_WORDS: Record<string, [number, number, number]> = {
  red: [200, 50, 45],
  orange: [235, 140, 40],
  yellow: [240, 210, 60],
  green: [70, 160, 80],
  blue: [60, 110, 210],
  purple: [130, 70, 170],
  violet: [140, 90, 200],
  pink: [240, 140, 180],
  teal: [40, 150, 150],
  cyan: [70, 200, 220],
  brown: [130, 90, 55],
  black: [25, 25, 30],
  white: [240, 240, 240],
  grey: [140, 140, 145],
  gray: [140, 140, 145],
  gold: [220, 180, 70],
  golden: [220, 180, 70],
  silver: [190, 195, 200],
  turquoise: [60, 200, 190],
  magenta: [210, 60, 170],
};

const MOOD_WORDS: Array<[Mood, RegExp]> = [
  ['energetic', /^(energetic|fast|wild|excit\w*|intense|hype\w*|power\w*|epic|crazy|frantic)$/],
  ['tense', /^(tense|scary|spooky|horror|creepy|danger\w*|dramatic|suspense\w*|angry|fight\w*)$/],
  ['melancholic', /^(sad|melanchol\w*|lonely|rain\w*|cry\w*|tears?|grey|gloomy|somber|sombre)$/],
  ['calm', /^(calm|peaceful|gentle|slow\w*|quiet|serene|relax\w*|soft|dreamy|lazy)$/],
  ['cheerful', /^(happy|cheerful|joy\w*|fun|funny|bright|playful|smil\w*|celebrat\w*|party|sunny)$/],
];

const CAMERA_PATTERNS: Array<[CameraMove, RegExp]> = [
  ['dolly-in', /\b(dolly|dollies|dollying|push(es|ing)?)\s*(in|forward|towards?)\b|\bdolly\b(?!\s*(out|back))/],
  ['dolly-out', /\b(dolly|dollies|dollying|pull(s|ing)?)\s*(out|back|away)\b/],
  ['zoom-out', /\bzoom(s|ing|ed)?\s*(out|away|back)\b|\bwide(ning)? shot\b/],
  ['zoom-in', /\bzoom(s|ing|ed)?\b|\bclose[- ]?up\b/],
  ['pan-left', /\bpan(s|ning|ned)?\s*(to\s*the\s*)?left\b/],
  ['pan-right', /\bpan(s|ning|ned)?\b|\btracking shot\b/],
];

/** Music tempo per mood and per action (the faster of the two wins). */
const MOOD_TEMPO: Record<Mood, number> = { calm: 76, melancholic: 70, cheerful: 112, tense: 96, energetic: 128 };
const ACTION_TEMPO: Partial<Record<Action, number>> = { dance: 120, run: 140, jump: 116, walk: 100, clap: 110, kick: 124, spin: 112 };

/** Extracts quoted dialogue ("...", “...”, and single quotes that wrap more than one word). */
export function quotedDialogue(prompt: string): string[] {
  const out: string[] = [];
  const re = /"([^"]{1,400})"|“([^”]{1,400})”|(?:^|[\s(])'([^']+\s[^']+)'(?=[\s.,!?;:)]|$)/g;
  for (const m of prompt.matchAll(re)) {
    const text = (m[1] ?? m[2] ?? m[3] ?? '').trim();
    if (/[\p{L}\p{N}]/u.test(text)) out.push(text);
  }
  return out;
}

function wordsOf(text: string): string[] {
  return text
    .toLowerCase()
    .replace(/[“”"']/g, ' ')
    .split(/[^\p{L}\p{N}-]+/u)
    .filter(Boolean);
}

export interface PlanInput {
  prompt: string;
  /** Ordered target tags: earlier tags first, read before the prompt. */
  tags: string[];
  durationS: number;
  seed: number;
}

export function planScene(input: PlanInput): ScenePlan {
  const rnd = mulberry32(input.seed ^ 0x5eed);
  const dialogue = quotedDialogue(input.prompt);
  // Dialogue is spoken, not staged: its words must not turn into actions or settings.
  const staged = input.prompt.replace(/"[^"]*"|“[^”]*”/g, ' ');
  const words = [...input.tags.flatMap(wordsOf), ...wordsOf(staged)];

  const actions: Action[] = [];
  let setting: Setting | null = null;
  const colours: Array<[number, number, number]> = [];
  const moodVotes = new Map<Mood, number>();
  for (const w of words) {
    const a = ACTION_WORDS.find(([, re]) => re.test(w))?.[0];
    if (a && actions[actions.length - 1] !== a && !actions.includes(a)) actions.push(a);
    const s = SETTING_WORDS.find(([, re]) => re.test(w))?.[0];
    if (s && setting === null) setting = s;
    const c = COLOUR_WORDS[w];
    if (c && colours.length < 3) colours.push(c);
    for (const [m, re] of MOOD_WORDS) if (re.test(w)) moodVotes.set(m, (moodVotes.get(m) ?? 0) + 1);
  }
  // At most four actions fit a clip of a few seconds; nothing recognised means standing idle.
  const chosen: Action[] = actions.length > 0 ? actions.slice(0, Math.max(1, Math.min(4, Math.floor(input.durationS / 1.5)))) : ['idle'];
  const d = input.durationS;
  const planned = chosen.map((action, i) => ({ action, startS: (d * i) / chosen.length, endS: (d * (i + 1)) / chosen.length }));

  const lower = staged.toLowerCase() + ' ' + input.tags.join(' ').toLowerCase();
  const camera = CAMERA_PATTERNS.find(([, re]) => re.test(lower))?.[0] ?? 'static';

  let mood: Mood = setting === 'night' ? 'calm' : 'cheerful';
  let best = 0;
  for (const m of MOODS) {
    const v = moodVotes.get(m) ?? 0;
    if (v > best) {
      best = v;
      mood = m;
    }
  }
  const tempo = Math.max(MOOD_TEMPO[mood], ...chosen.map((a) => ACTION_TEMPO[a] ?? 0));
  const travels = chosen.some((a) => a === 'walk' || a === 'run');
  const direction: 1 | -1 = rnd() < 0.5 ? 1 : -1;
  // A travelling subject starts on the side it walks away from; a standing one near the middle.
  const subjectX = travels ? 0.5 - direction * (0.14 + rnd() * 0.06) : 0.4 + rnd() * 0.2;
  return {
    durationS: d,
    seed: input.seed,
    actions: planned,
    setting: setting ?? 'studio',
    colours,
    mood,
    tempo,
    camera,
    dialogue,
    subjectX,
    direction,
    words,
  };
}

const SETTING_TEXT: Record<Setting, string> = {
  studio: 'a softly lit studio with a warm grey backdrop',
  sky: 'an open hillside under a bright sky with drifting clouds',
  room: 'a cosy room with a window, a wooden floor and framed pictures',
  beach: 'a sunny beach with gentle waves rolling onto pale sand',
  night: 'a quiet night scene under a starry sky and a pale moon',
  forest: 'a green forest clearing with tall trees on either side',
  city: 'a city street at golden hour with a skyline behind',
  snow: 'a snowy winter landscape with soft white drifts',
  stage: 'a stage lit by a warm spotlight against a dark curtain',
};

const ACTION_TEXT: Record<Action, string> = {
  idle: 'stands in a relaxed pose, breathing gently',
  walk: 'walks across the frame with an easy stride',
  run: 'runs with quick steps and pumping arms',
  jump: 'jumps up with both arms raised',
  dance: 'dances with swinging arms and bouncing knees',
  wave: 'waves a hand in greeting',
  clap: 'claps hands in rhythm',
  bow: 'takes a polite bow',
  spin: 'spins around with arms out',
  kick: 'throws a high kick',
  sit: 'sits down and rests',
};

const CAMERA_TEXT: Record<CameraMove, string> = {
  static: 'The camera holds a steady medium-wide shot.',
  'zoom-in': 'The camera slowly zooms in on the subject.',
  'zoom-out': 'The camera slowly zooms out to reveal the scene.',
  'pan-left': 'The camera pans gently to the left.',
  'pan-right': 'The camera pans gently to the right.',
  'dolly-in': 'The camera dollies in towards the subject, the background shifting behind.',
  'dolly-out': 'The camera dollies back from the subject, the background shifting behind.',
};

/**
 * `enhance_mode=prompt`: the short prompt written out as the detailed scene description the
 * generator plays, in sentences. Deterministic in the plan, so it matches what the video shows.
 */
export function enhancePrompt(prompt: string, plan: ScenePlan, subject: string): string {
  const steps = plan.actions.map(
    (a, i) =>
      `${i === 0 ? 'First' : i === plan.actions.length - 1 ? 'Finally' : 'Then'} the ${subject} ${ACTION_TEXT[a.action]} (${a.startS.toFixed(1)}-${a.endS.toFixed(1)} s).`,
  );
  const speech = plan.dialogue.length > 0 ? ` The ${subject} says: ${plan.dialogue.map((t) => `"${t}"`).join(' and ')}.` : '';
  const tint =
    plan.colours.length > 0
      ? ` The palette leans towards ${plan.colours.length} requested colour${plan.colours.length > 1 ? 's' : ''}.`
      : '';
  return (
    `${prompt.trim().replace(/\s+/g, ' ')} — Scene: ${SETTING_TEXT[plan.setting]}.${tint} ${steps.join(' ')}${speech} ` +
    `${CAMERA_TEXT[plan.camera]} Mood: ${plan.mood}, music at ${plan.tempo} bpm.`
  ).slice(0, 4000);
}
