// Videos: every render, H3 and character-animation video of the account (GET /v1/videos), with
// a status filter and cursor paging; each ready one plays in the page.
import { api, describe } from '../lib/api.js';
import { badge, field, fmtTime, h, notify } from '../lib/dom.js';
import { player } from '../lib/player.js';

const FAMILY = { render: 'Render', vid: 'H3 video', anim: 'Character animation' };

export async function videosView(root) {
  const c = api();
  const filter = h(
    'select',
    {},
    h('option', { value: '' }, 'All'),
    ...['queued', 'processing', 'ready', 'failed', 'cancelled'].map((s) => h('option', { value: s }, s)),
  );
  const body = h('tbody');
  const prev = h('button', { type: 'button', class: 'secondary' }, 'Newer');
  const next = h('button', { type: 'button', class: 'secondary' }, 'Older');
  const pageInfo = h('span', { class: 'muted', 'aria-live': 'polite' });
  const viewer = h('div', { id: 'videos-player' });
  const PAGE = 10;
  // Cursors of the pages shown so far (the first page has none): "Newer" goes back one.
  let cursors = [undefined];

  const load = async () => {
    prev.disabled = next.disabled = true;
    try {
      const cursor = cursors[cursors.length - 1];
      const query = { limit: PAGE, ...(cursor ? { cursor } : {}), ...(filter.value ? { status: filter.value } : {}) };
      const page = await c.unwrap(c.api.GET('/v1/videos', { params: { query } }));
      body.replaceChildren();
      for (const v of page.items) {
        const family = FAMILY[v.id.split('_')[0]] ?? 'Video';
        const play =
          v.status === 'ready' && v.video_url
            ? h(
                'button',
                {
                  type: 'button',
                  class: 'secondary',
                  'aria-label': `Play ${v.id}`,
                  onclick: () => {
                    viewer.replaceChildren(h('h3', {}, v.id), player({ id: v.id, videoUrl: v.video_url, alphaUrl: v.alpha_url }));
                    viewer
                      .querySelector('video')
                      ?.play()
                      .catch(() => {});
                    viewer.scrollIntoView({ block: 'nearest' });
                  },
                },
                'Play',
              )
            : null;
        body.append(
          h(
            'tr',
            {},
            h('td', {}, h('code', {}, v.id), h('div', { class: 'muted' }, family)),
            h(
              'td',
              {},
              badge(v.status),
              v.stage ? h('div', { class: 'muted' }, v.stage) : null,
              v.error ? h('div', { class: 'error' }, v.error.code) : null,
            ),
            h('td', { class: 'num' }, v.progress === null ? '—' : `${v.progress}%`),
            h('td', { class: 'hide-narrow' }, fmtTime(v.created_at)),
            h('td', {}, play),
          ),
        );
      }
      if (page.items.length === 0) body.append(h('tr', {}, h('td', { colspan: 5 }, 'No video matches.')));
      pageInfo.textContent = `Page ${cursors.length}`;
      prev.disabled = cursors.length <= 1;
      next.disabled = !page.has_more;
      next.onclick = () => {
        cursors.push(page.next_cursor);
        void load();
      };
    } catch (e) {
      notify(describe(e), true);
    }
  };
  prev.addEventListener('click', () => {
    cursors.pop();
    void load();
  });
  filter.addEventListener('change', () => {
    cursors = [undefined];
    void load();
  });
  root.append(
    h('h2', {}, 'Videos'),
    h('div', { class: 'panel' }, ...field('Status', filter)),
    h(
      'div',
      { class: 'table-wrap', role: 'region', 'aria-label': 'Videos table', tabindex: 0 },
      h(
        'table',
        {},
        h('caption', { class: 'sr-only' }, 'Videos, newest first'),
        h(
          'thead',
          {},
          h(
            'tr',
            {},
            h('th', { scope: 'col' }, 'Video'),
            h('th', { scope: 'col' }, 'Status'),
            h('th', { scope: 'col', class: 'num' }, 'Progress'),
            h('th', { scope: 'col', class: 'hide-narrow' }, 'Created'),
            h('th', { scope: 'col' }, h('span', { class: 'sr-only' }, 'Actions')),
          ),
        ),
        body,
      ),
    ),
    h('div', { class: 'controls' }, prev, next, pageInfo),
    viewer,
  );
  await load();
}
