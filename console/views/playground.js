// Playground: a render (character + motion + background), an H3 video (prompt) or a
// character-animation video, with the price estimate, live progress and the result in the page.
// Render progress comes from the render's event stream, read with fetch (EventSource cannot send
// the Authorization header); H3 and character-animation videos have no stream and are polled.
import { api, describe, isTerminal, mediaDuration } from '../lib/api.js';
import { dropZone, field, h, nextId, notify, radios } from '../lib/dom.js';
import { player } from '../lib/player.js';
import { refreshBalance } from '../app.js';

const hexToRgb = (hex) => [1, 3, 5].map((i) => parseInt(hex.slice(i, i + 2), 16)).join(',');

/** One input family: upload, URL, an existing asset, or (motions) a template. */
function sourcePicker({ legend, name, accept, dropText, urlText, options, assets, templates, onchange }) {
  let file = null;
  const drop = dropZone(dropText, accept, (f) => ((file = f), onchange()));
  const url = h('input', { type: 'url', placeholder: 'https://…', onchange, oninput: onchange });
  const existing = h('select', { onchange });
  const template = h('select', { onchange });
  const panes = {
    upload: h('div', {}, drop.el),
    url: h('div', {}, ...field(urlText, url)),
    existing: h('div', {}, ...field(`Ready ${name}`, existing)),
    template: h('div', {}, ...field('Template', template)),
  };
  const choice = radios(legend, nextId(name), options, 'upload', (v) => {
    for (const [k, el] of Object.entries(panes)) el.hidden = k !== v;
    onchange();
  });
  for (const [k, el] of Object.entries(panes)) el.hidden = k !== 'upload';
  choice.el.append(...options.map(([k]) => panes[k]));
  const fill = (list) => {
    existing.replaceChildren(
      ...(list.length
        ? list.map((a) => h('option', { value: a.id }, `${a.name || '(no name)'} · ${a.id}`))
        : [h('option', { value: '' }, `No ready ${name}`)]),
    );
  };
  void assets().then(fill, () => fill([]));
  if (templates)
    void templates().then((list) =>
      template.replaceChildren(
        ...list.map((t) => h('option', { value: t.id, dataset: { seconds: t.duration_s } }, `${t.name} (${t.duration_s} s)`)),
      ),
    );
  return {
    el: choice.el,
    get: () => {
      const v = choice.value();
      if (v === 'upload') return file ? { kind: 'file', file } : null;
      if (v === 'url') return url.value ? { kind: 'url', url: url.value } : null;
      if (v === 'existing') return existing.value ? { kind: 'id', id: existing.value } : null;
      if (v === 'template')
        return template.value
          ? { kind: 'template', id: template.value, seconds: Number(template.selectedOptions[0]?.dataset.seconds) }
          : null;
      return null;
    },
  };
}

/** Seconds of a motion source as far as the browser can tell (null: known once the service measured it). */
async function motionSeconds(src) {
  if (!src) return null;
  if (src.kind === 'template') return src.seconds;
  if (src.kind === 'file') return mediaDuration(src.file);
  if (src.kind === 'url') return mediaDuration(src.url);
  return null;
}

export async function playgroundView(root, isCurrent) {
  const c = api();
  const readyChars = async () => (await c.characters.list().first()).items.filter((a) => a.status === 'ready');
  const readyMotions = async () => (await c.motions.list({ limit: 100 }).first()).items.filter((a) => a.status === 'ready');
  const templates = () => c.motions.templates();

  const price = h('p', { class: 'price', id: 'pg-price', 'aria-live': 'polite' }, '');
  const error = h('p', { class: 'error', role: 'alert', id: 'pg-error' });
  const progress = h('progress', { id: 'pg-progress', max: 100, value: 0, 'aria-label': 'Progress' });
  const status = h('p', { id: 'pg-status', 'aria-live': 'polite' }, 'Nothing started yet.');
  const log = h('ol', { class: 'events', id: 'pg-events', 'aria-label': 'Events received', tabindex: 0 });
  const result = h('div', { id: 'pg-result' });
  const start = h('button', { type: 'submit', id: 'pg-start' }, 'Start');

  let estimate = async () => {};
  const reprice = () => void estimate();

  // --- Render
  const character = sourcePicker({
    legend: 'Character',
    name: 'characters',
    accept: 'image/png,image/jpeg,image/webp',
    dropText: 'Character picture',
    urlText: 'Picture URL',
    options: [
      ['upload', 'Upload'],
      ['url', 'URL'],
      ['existing', 'Existing'],
    ],
    assets: readyChars,
    onchange: reprice,
  });
  const motion = sourcePicker({
    legend: 'Motion',
    name: 'motions',
    accept: 'video/mp4,video/quicktime,video/webm',
    dropText: 'Driving video',
    urlText: 'Video URL',
    options: [
      ['upload', 'Upload'],
      ['url', 'URL'],
      ['existing', 'Existing'],
      ['template', 'Template'],
    ],
    assets: readyMotions,
    templates,
    onchange: reprice,
  });
  const color = h('input', { type: 'color', value: '#2e7d32' });
  const colorRow = h('div', { hidden: true }, ...field('Background colour', color));
  const background = radios(
    'Background',
    nextId('bg'),
    [
      ['original', 'Original scene'],
      ['solid', 'Solid colour'],
      ['transparent', 'Transparent'],
    ],
    'original',
    (v) => (colorRow.hidden = v !== 'solid'),
  );
  background.el.append(colorRow);
  const renderPane = h('div', {}, h('div', { class: 'row' }, character.el, motion.el), background.el);

  // --- H3
  const prompt = h('textarea', { maxlength: 2000, placeholder: 'A person dances in a forest at sunset, "hello there"' });
  const duration = h('input', { type: 'number', min: 3, max: 15, step: 1, value: 5, oninput: reprice });
  const resolution = h(
    'select',
    { onchange: reprice },
    ...['480p', '768p', '1080p', '2k', '4k'].map((r) => h('option', { value: r, selected: r === '768p' }, r)),
  );
  const aspect = h('select', {}, ...['16:9', '9:16', '1:1', '4:3', '3:4', '21:9'].map((r) => h('option', { value: r }, r)));
  const quality = h('select', {}, h('option', { value: 'low' }, 'low (faster)'), h('option', { value: 'high' }, 'high'));
  const enhance = h('select', {}, h('option', { value: 'off' }, 'off'), h('option', { value: 'prompt' }, 'expand the prompt'));
  const seed = h('input', { type: 'number', min: 0, max: 2147483647, placeholder: 'random' });
  const h3Pane = h(
    'div',
    { hidden: true },
    ...field('Prompt', prompt),
    h(
      'div',
      { class: 'row' },
      h('div', {}, ...field('Duration (seconds, 3–15)', duration)),
      h('div', {}, ...field('Resolution', resolution)),
      h('div', {}, ...field('Aspect ratio', aspect)),
      h('div', {}, ...field('Quality', quality)),
      h('div', {}, ...field('Prompt enhancement', enhance)),
      h('div', {}, ...field('Seed', seed)),
    ),
  );

  // --- Character animation
  const animCharacter = sourcePicker({
    legend: 'Character',
    name: 'characters',
    accept: 'image/png,image/jpeg,image/webp',
    dropText: 'Character picture',
    urlText: 'Picture URL',
    options: [
      ['upload', 'Upload'],
      ['url', 'URL'],
      ['existing', 'Existing'],
    ],
    assets: readyChars,
    onchange: reprice,
  });
  const animMotion = sourcePicker({
    legend: 'Driving video',
    name: 'motions',
    accept: 'video/mp4,video/quicktime,video/webm',
    dropText: 'Driving video',
    urlText: 'Video URL',
    options: [
      ['upload', 'Upload'],
      ['url', 'URL'],
      ['existing', 'Existing motion'],
    ],
    assets: readyMotions,
    onchange: reprice,
  });
  const animPrompt = h('textarea', { maxlength: 2000, placeholder: 'Optional: what the scene should look like' });
  const animPane = h(
    'div',
    { hidden: true },
    h('div', { class: 'row' }, animCharacter.el, animMotion.el),
    ...field('Prompt (optional)', animPrompt),
  );

  const panes = { render: renderPane, h3: h3Pane, animate: animPane };
  const mode = radios(
    'What to make',
    nextId('mode'),
    [
      ['render', 'Render (character + motion)'],
      ['h3', 'H3 video from a prompt'],
      ['animate', 'Character animation video'],
    ],
    'render',
    (v) => {
      for (const [k, el] of Object.entries(panes)) el.hidden = k !== v;
      reprice();
    },
  );

  estimate = async () => {
    const m = mode.value();
    let text;
    if (m === 'h3') {
      const s = Math.min(15, Math.max(3, Number(duration.value) || 5));
      const per = resolution.value === '4k' ? 5 : 1;
      text = `Price: ${Math.ceil(s) * per} credits (${per} credit${per > 1 ? 's' : ''} per generated second at ${resolution.value}).`;
    } else {
      const src = m === 'render' ? motion.get() : animMotion.get();
      const s = await motionSeconds(src);
      const rule =
        m === 'render'
          ? '1 credit per second of finished video, settled at the exact length'
          : '1 credit per second of driving video, rounded up';
      text =
        s === null
          ? `Price: ${rule}; this motion's length is known once the service has measured it.`
          : `Estimated price: ${Math.ceil(s)} credits for ${s.toFixed(1)} s (${rule}).`;
    }
    price.textContent = text;
  };

  const media = (src) => (src.kind === 'file' ? src.file : src.url);
  const showEvent = (name, d) => {
    log.append(h('li', {}, `${name}: ${d.status}${d.stage ? ` · ${d.stage}` : ''}${d.progress !== null ? ` · ${d.progress}%` : ''}`));
    log.scrollTop = log.scrollHeight;
    if (d.progress !== null) progress.value = d.progress;
    status.textContent = `${d.id}: ${d.status}${d.stage ? `, ${d.stage}` : ''}${d.progress !== null ? `, ${d.progress}%` : ''}`;
  };
  const finish = async (id) => {
    const v = await c.videos.get(id);
    if (v.status === 'ready') {
      progress.value = 100;
      status.textContent = `${id}: ready.`;
      result.replaceChildren(h('h3', {}, 'Result'), player({ id, videoUrl: v.video_url, alphaUrl: v.alpha_url }));
    } else {
      status.textContent = `${id}: ${v.status}.`;
      if (v.error) error.textContent = `${v.error.code}: ${v.error.message}`;
    }
    void refreshBalance();
  };

  /** A template is rendered through a Motion imported from it (free), once that Motion is ready. */
  const motionIdFor = async (src) => {
    if (src.kind !== 'template') return src;
    status.textContent = `Importing template ${src.id}…`;
    const m = await c.motions.import(src.id);
    const ready = await c.waitFor(m.id, { intervalMs: 1500, throwOnFailure: true });
    return { kind: 'id', id: ready.id };
  };

  const run = async () => {
    const m = mode.value();
    error.textContent = '';
    log.replaceChildren();
    result.replaceChildren();
    progress.value = 0;
    if (m === 'render') {
      const ch = character.get();
      let mo = motion.get();
      if (!ch || !mo) throw new Error('Choose a character and a motion first.');
      mo = await motionIdFor(mo);
      const bg = background.value();
      status.textContent = 'Uploading…';
      const r = await c.renders.create({
        ...(ch.kind === 'id' ? { characterId: ch.id } : { character: media(ch) }),
        ...(mo.kind === 'id' ? { motionId: mo.id } : { motion: media(mo) }),
        backgroundMode: bg,
        ...(bg === 'solid' ? { bgColor: hexToRgb(color.value) } : {}),
        upload: 'direct',
      });
      status.textContent = `${r.id}: ${r.status}`;
      void refreshBalance();
      for await (const ev of c.events(r.id)) {
        if (ev.data) showEvent(ev.event, ev.data);
        if (!isCurrent()) return;
      }
      await finish(r.id);
      return;
    }
    let fields;
    if (m === 'h3') {
      if (!prompt.value.trim()) throw new Error('Write a prompt first.');
      fields = {
        mode: 'h3',
        prompt: prompt.value,
        duration_s: Number(duration.value) || 5,
        resolution: resolution.value,
        aspect_ratio: aspect.value,
        quality: quality.value,
        enhance_mode: enhance.value,
        ...(seed.value !== '' ? { seed: Number(seed.value) } : {}),
      };
    } else {
      const ch = animCharacter.get();
      const mo = animMotion.get();
      if (!ch || !mo) throw new Error('Choose a character and a driving video first.');
      fields = {
        mode: 'animate',
        ...(animPrompt.value.trim() ? { prompt: animPrompt.value } : {}),
        ...(ch.kind === 'id' ? { character_id: ch.id } : { character: media(ch) }),
        ...(mo.kind === 'id' ? { motion_id: mo.id } : { drivingVideo: media(mo) }),
      };
    }
    status.textContent = 'Sending…';
    const v = await c.videos.create(fields);
    void refreshBalance();
    showEvent('created', v);
    await c.waitFor(v.id, {
      intervalMs: 3000,
      onPoll: (p) => isCurrent() && showEvent('poll', p),
    });
    await finish(v.id);
  };

  const form = h(
    'form',
    {
      onsubmit: async (e) => {
        e.preventDefault();
        start.disabled = true;
        try {
          await run();
        } catch (err) {
          error.textContent = describe(err);
          status.textContent = 'Stopped.';
          notify('');
        } finally {
          start.disabled = false;
        }
      },
    },
    mode.el,
    renderPane,
    h3Pane,
    animPane,
    price,
    start,
    error,
  );
  root.append(
    h('h2', {}, 'Playground'),
    h('section', { class: 'panel', 'aria-label': 'New job' }, form),
    h(
      'section',
      { class: 'panel', 'aria-labelledby': 'pg-progress-title' },
      h('h3', { id: 'pg-progress-title' }, 'Progress'),
      progress,
      status,
      log,
      result,
    ),
  );
  reprice();
}
