// Credits: balance and reserved (GET /v1/credits) and the ledger history (GET /v1/credits/ledger).
import { api, describe } from '../lib/api.js';
import { fmtCredits, fmtTime, h, notify } from '../lib/dom.js';

const KINDS = {
  grant: 'Credits added',
  reserve: 'Reserved for a job',
  settle: 'Charged at completion',
  release: 'Reservation given back',
  charge: 'Charged',
  refund: 'Refunded',
};

/** Settlements note the final amount in thousandths of a credit ("actual 2000"). */
const noteText = (note) => {
  const m = /^actual (\d+)$/.exec(note);
  return m ? `final amount ${fmtCredits(Number(m[1]) / 1000)} credits` : note;
};

export async function creditsView(root) {
  const c = api();
  const stats = h('div', { class: 'stats' });
  const body = h('tbody');
  const more = h('button', { type: 'button', class: 'secondary', hidden: true }, 'Load older entries');
  root.append(
    h('h2', {}, 'Credits'),
    stats,
    h('h3', {}, 'Ledger'),
    h('p', { class: 'muted' }, '1 credit = $0.01. Every movement of the account, newest first.'),
    h(
      'div',
      { class: 'table-wrap', role: 'region', 'aria-label': 'Credit ledger table', tabindex: 0 },
      h(
        'table',
        {},
        h('caption', { class: 'sr-only' }, 'Credit ledger'),
        h(
          'thead',
          {},
          h(
            'tr',
            {},
            h('th', { scope: 'col' }, 'When'),
            h('th', { scope: 'col' }, 'Movement'),
            h('th', { scope: 'col' }, 'Resource'),
            h('th', { scope: 'col', class: 'num' }, 'Spendable'),
            h('th', { scope: 'col', class: 'num' }, 'Reserved'),
          ),
        ),
        body,
      ),
    ),
    more,
  );
  const balance = await c.credits.get();
  stats.append(
    h(
      'div',
      { class: 'stat' },
      h('div', { class: 'muted' }, 'Balance'),
      h('div', { class: 'value', id: 'credits-balance' }, fmtCredits(balance.balance)),
    ),
    h(
      'div',
      { class: 'stat' },
      h('div', { class: 'muted' }, 'Reserved'),
      h('div', { class: 'value', id: 'credits-reserved' }, fmtCredits(balance.reserved)),
    ),
    h('div', { class: 'stat' }, h('div', { class: 'muted' }, 'Updated'), h('div', {}, fmtTime(balance.updated_at))),
  );
  const pages = c.credits.ledger({ limit: 25 }).pages();
  const load = async () => {
    more.disabled = true;
    try {
      const { value: page, done } = await pages.next();
      if (done) return void (more.hidden = true);
      for (const e of page.items) {
        const signed = (n) => (n > 0 ? `+${fmtCredits(n)}` : n < 0 ? `−${fmtCredits(-n)}` : '0');
        body.append(
          h(
            'tr',
            {},
            h('td', {}, fmtTime(e.created_at)),
            h('td', {}, KINDS[e.kind] ?? e.kind, e.note ? h('div', { class: 'muted' }, noteText(e.note)) : null),
            h('td', { class: 'id' }, h('code', {}, e.resource_id)),
            h('td', { class: 'num' }, signed(e.amount)),
            h('td', { class: 'num' }, signed(e.reserved_delta)),
          ),
        );
      }
      if (page.items.length === 0 && body.children.length === 0) body.append(h('tr', {}, h('td', { colspan: 5 }, 'No movement yet.')));
      more.hidden = !page.has_more;
    } catch (e) {
      notify(describe(e), true);
    } finally {
      more.disabled = false;
    }
  };
  more.addEventListener('click', load);
  await load();
}
