// The console's shell: sign-in, the header's balance, and hash routing between the sections.
import { api, describe, isAuthError, signIn, signOut, storedKey } from './lib/api.js';
import { fmtCredits, h, notify } from './lib/dom.js';
import { playgroundView } from './views/playground.js';
import { assetsView } from './views/assets.js';
import { videosView } from './views/videos.js';
import { creditsView } from './views/credits.js';

const $ = (id) => document.getElementById(id);
const VIEWS = {
  playground: (root, isCurrent) => playgroundView(root, isCurrent),
  characters: (root, isCurrent) => assetsView(root, 'characters', isCurrent),
  motions: (root, isCurrent) => assetsView(root, 'motions', isCurrent),
  videos: (root) => videosView(root),
  credits: (root) => creditsView(root),
};
let generation = 0;

export async function refreshBalance() {
  try {
    const b = await api().credits.get();
    $('balance').textContent = `${fmtCredits(b.balance)} credits (${fmtCredits(b.reserved)} reserved)`;
  } catch (e) {
    if (isAuthError(e)) return showSignIn('The API key is no longer accepted; sign in again.');
  }
}

function showSignIn(message = '') {
  signOut();
  generation++;
  $('view').replaceChildren();
  $('sign-in').hidden = false;
  $('nav').hidden = $('account').hidden = true;
  $('sign-in-error').textContent = message;
  $('api-key').focus();
}

async function route() {
  if (!storedKey()) return showSignIn();
  $('sign-in').hidden = true;
  $('nav').hidden = $('account').hidden = false;
  const name = location.hash.replace(/^#\/?/, '') || 'playground';
  const view = VIEWS[name] ? name : 'playground';
  for (const a of document.querySelectorAll('nav a')) {
    if (a.getAttribute('href') === `#/${view}`) a.setAttribute('aria-current', 'page');
    else a.removeAttribute('aria-current');
  }
  document.title = `${view[0].toUpperCase()}${view.slice(1)} · Marionette console`;
  const mine = ++generation;
  const root = h('div', { dataset: { view } });
  $('view').replaceChildren(root);
  notify('');
  void refreshBalance();
  try {
    await VIEWS[view](root, () => mine === generation);
  } catch (e) {
    if (isAuthError(e)) return showSignIn('The API key is no longer accepted; sign in again.');
    if (mine === generation) notify(describe(e), true);
  }
}

$('sign-in-form').addEventListener('submit', async (e) => {
  e.preventDefault();
  const key = $('api-key').value.trim();
  const button = e.submitter;
  if (button) button.disabled = true;
  $('sign-in-error').textContent = '';
  try {
    await signIn(key);
    $('api-key').value = '';
    await route();
    $('main').focus();
  } catch (err) {
    $('sign-in-error').textContent = isAuthError(err)
      ? `This API key was not accepted (${err.code}). Check that you copied the whole key (it starts with mk_live_) and that it has not been revoked.`
      : describe(err);
    $('api-key').focus();
  } finally {
    if (button) button.disabled = false;
  }
});
$('sign-out').addEventListener('click', () => showSignIn());
window.addEventListener('hashchange', () => void route());
void route();
