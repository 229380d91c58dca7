// Characters and Motions: galleries with thumbnails and status, creation from a dropped/chosen
// file or a URL, template import (Motions), delete with confirmation. Unfinished items are
// refreshed every 3 s (the interface's polling advice) while the page is shown.
import { api, authorizedImage, describe } from '../lib/api.js';
import { badge, confirmDialog, dropZone, field, h, notify } from '../lib/dom.js';

const KINDS = {
  characters: {
    title: 'Characters',
    one: 'Character',
    accept: 'image/png,image/jpeg,image/webp',
    fileText: 'Character picture (PNG, JPEG or WebP, one person, whole body)',
    urlText: 'Picture URL',
    price: 'A Character costs 1 credit, charged when it is accepted.',
    list: async (c) => (await c.characters.list().first()).items,
    create: (c, media, name) => c.characters.create(media, { name }),
    remove: (c, id) => c.characters.delete(id),
    // Before it is ready a Character shows its uploaded picture, after it its cut-out.
    thumb: (a) => `/v1/characters/${encodeURIComponent(a.id)}/thumbnail`,
  },
  motions: {
    title: 'Motions',
    one: 'Motion',
    accept: 'video/mp4,video/quicktime,video/webm',
    fileText: 'Driving video (MP4, MOV or WebM, one performer)',
    urlText: 'Video URL',
    price: 'Motions are free.',
    list: async (c) => (await c.motions.list({ limit: 100 }).first()).items,
    create: (c, media, name) => c.motions.create(media, { name }),
    remove: (c, id) => c.motions.delete(id),
    thumb: (a) => (a.status === 'ready' ? `/v1/motions/${encodeURIComponent(a.id)}/thumbnail` : null),
  },
};

export async function assetsView(root, which, isCurrent) {
  const kind = KINDS[which];
  const c = api();
  const gallery = h('ul', { class: 'gallery', 'aria-label': `${kind.title} gallery` });
  const empty = h('p', { class: 'muted' }, `No ${kind.title.toLowerCase()} yet.`);
  const formError = h('p', { class: 'error', role: 'alert' });
  const cards = new Map();
  const thumbs = new Map();

  const nameInput = h('input', { type: 'text', maxlength: 256, autocomplete: 'off' });
  const urlInput = h('input', { type: 'url', placeholder: 'https://…' });
  const create = async (media, what) => {
    formError.textContent = '';
    notify(`Uploading ${what}…`);
    try {
      const a = await kind.create(c, media, nameInput.value.trim());
      notify(`${kind.one} ${a.id} created (${a.status}).`);
      nameInput.value = '';
      await refresh();
    } catch (e) {
      formError.textContent = describe(e);
      notify('');
    }
  };
  const drop = dropZone(kind.fileText, kind.accept, (file) => {
    void create(file, file.name).then(() => drop.clear());
  });
  const urlForm = h(
    'form',
    {
      onsubmit: (e) => {
        e.preventDefault();
        if (urlInput.value) void create(urlInput.value, urlInput.value);
      },
    },
    ...field(kind.urlText, urlInput),
    h('button', { type: 'submit' }, `Create from URL`),
  );

  const createPanel = h(
    'section',
    { class: 'panel', 'aria-labelledby': `new-${which}` },
    h('h3', { id: `new-${which}` }, `New ${kind.one.toLowerCase()}`),
    h('p', { class: 'muted' }, kind.price),
    ...field('Name (optional)', nameInput),
    h('div', { class: 'row' }, h('div', {}, drop.el), urlForm),
    formError,
  );
  root.append(h('h2', {}, kind.title), createPanel);

  if (which === 'motions') {
    const select = h('select', {});
    const importForm = h(
      'form',
      {
        onsubmit: async (e) => {
          e.preventDefault();
          formError.textContent = '';
          try {
            const m = await c.motions.import(select.value);
            notify(`Template imported as ${m.id} (${m.status}).`);
            await refresh();
          } catch (err) {
            formError.textContent = describe(err);
          }
        },
      },
      ...field('Template', select),
      h('button', { type: 'submit' }, 'Import template'),
    );
    createPanel.insertBefore(h('div', {}, h('h3', {}, 'From a template'), importForm), formError);
    for (const t of await c.motions.templates()) select.append(h('option', { value: t.id }, `${t.name} (${t.duration_s} s)`));
  }
  root.append(h('section', { 'aria-label': `Your ${kind.title.toLowerCase()}` }, gallery, empty));

  const thumbOf = (a) => {
    const path = kind.thumb(a);
    const key = `${a.id}:${a.status}`;
    const box = h('div', { class: 'thumb' }, a.status === 'ready' ? '' : a.status);
    if (!path) return box;
    if (!thumbs.has(key))
      thumbs.set(
        key,
        authorizedImage(path).catch(() => null),
      );
    void thumbs.get(key).then((url) => {
      if (url) box.replaceWith(h('img', { class: 'thumb', src: url, alt: `${kind.one} ${a.name || a.id}` }));
    });
    return box;
  };
  const card = (a) =>
    h(
      'li',
      { class: 'card', dataset: { id: a.id, status: a.status } },
      thumbOf(a),
      h('span', { class: 'name' }, a.name || '(no name)'),
      h('span', { class: 'id' }, a.id),
      badge(a.status),
      h(
        'button',
        {
          type: 'button',
          class: 'danger',
          'aria-label': `Delete ${a.name || a.id}`,
          onclick: async () => {
            if (!(await confirmDialog(`Delete ${kind.one.toLowerCase()} ${a.name || a.id}? Renders that used it keep working.`))) return;
            try {
              await kind.remove(c, a.id);
              notify(`${a.id} deleted.`);
              await refresh();
            } catch (e) {
              notify(describe(e), true);
            }
          },
        },
        'Delete',
      ),
    );

  let timer = null;
  const refresh = async () => {
    clearTimeout(timer);
    let items;
    try {
      items = await kind.list(c);
    } catch (e) {
      notify(describe(e), true);
      return;
    }
    const seen = new Set();
    let prev = null;
    for (const a of items) {
      seen.add(a.id);
      let el = cards.get(a.id);
      if (!el || el.dataset.status !== a.status) {
        const fresh = card(a);
        if (el) el.replaceWith(fresh);
        el = fresh;
        cards.set(a.id, el);
      }
      if (prev ? prev.nextSibling !== el : gallery.firstChild !== el) prev ? prev.after(el) : gallery.prepend(el);
      prev = el;
    }
    for (const [id, el] of cards) if (!seen.has(id)) (el.remove(), cards.delete(id));
    empty.hidden = items.length > 0;
    if (items.some((a) => a.status === 'queued' || a.status === 'processing')) {
      timer = setTimeout(() => isCurrent() && void refresh(), 3000);
    }
  };
  await refresh();
}
