import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { hasSharedMedia, NO_MEDIA_REASON, startService, type TestService } from '../helpers/harness.js';
import { prepareMedia } from '../helpers/media-prep.js';

/**
 * The web console (/console) in a real browser: Debian's Chromium driven by playwright-core,
 * headless, against a live service with in-process workers. One browser for the whole file.
 * Screenshots go to MARIONETTE_CONSOLE_SCREENSHOTS when set (a temp dir otherwise).
 */
// Page-side callbacks run in the browser; the test project compiles without the DOM library.
declare const document: any;
declare const window: any;
declare const sessionStorage: any;
declare const localStorage: any;
declare const MutationObserver: any;
declare const atob: (s: string) => string;

const CHROMIUM = process.env.MARIONETTE_CHROMIUM ?? '/usr/bin/chromium';
const skip = !existsSync(CHROMIUM)
  ? `Chromium not found at ${CHROMIUM} (.ci/run installs Debian's chromium; set MARIONETTE_CHROMIUM to use another)`
  : !hasSharedMedia() && NO_MEDIA_REASON;

describe('web console in a real browser', { skip }, () => {
  let svc: TestService;
  let context: BrowserContext;
  let page: Page;
  let profile: string;
  let shots: string;
  let media: { dir: string; video: string; image: string };

  const signIn = async (key: string) => {
    await page.goto(`${svc.baseUrl}/console/`);
    await page.getByLabel('API key').fill(key);
    await page.getByRole('button', { name: 'Sign in' }).click();
  };
  const axe = async () => {
    const source = await readFile(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
    await page.addScriptTag({ content: source });
    const res = await page.evaluate(async () => {
      const r = await (globalThis as any).axe.run(document, { resultTypes: ['violations'] });
      return r.violations.map((v: any) => ({ id: v.id, impact: v.impact, nodes: v.nodes.length, help: v.help }));
    });
    return res as Array<{ id: string; impact: string; nodes: number; help: string }>;
  };
  const seriousOf = (v: Array<{ impact: string }>) => v.filter((x) => x.impact === 'serious' || x.impact === 'critical');

  before(async () => {
    media = await prepareMedia({ seconds: 2, width: 320 });
    svc = await startService({ db: 'sqlite', workers: true, credits: 200 });
    profile = await mkdtemp(join(tmpdir(), 'marionette-chromium-'));
    shots = process.env.MARIONETTE_CONSOLE_SCREENSHOTS ?? join(profile, 'shots');
    await mkdir(shots, { recursive: true });
    context = await chromium.launchPersistentContext(profile, {
      executablePath: CHROMIUM,
      headless: true,
      args: ['--no-sandbox', '--disable-background-networking'],
      viewport: { width: 1280, height: 900 },
      // Only for injecting axe-core: the console's own policy allows no inline script.
      bypassCSP: true,
    });
    page = context.pages()[0] ?? (await context.newPage());
  });
  after(async () => {
    await context?.close();
    await svc?.close();
    if (profile) await rm(profile, { recursive: true, force: true }).catch(() => {});
    if (media) await rm(media.dir, { recursive: true, force: true });
  });

  test('the page comes from the service itself, with no external resource', async () => {
    const external: string[] = [];
    page.on('request', (r) => {
      if (!r.url().startsWith(svc.baseUrl) && !r.url().startsWith('blob:') && !r.url().startsWith('data:')) external.push(r.url());
    });
    const res = await page.goto(`${svc.baseUrl}/console`);
    assert.equal(res?.status(), 200);
    assert.equal(new URL(page.url()).pathname, '/console/');
    assert.match(res!.headers()['content-security-policy'] ?? '', /default-src 'self'/);
    await page.getByRole('heading', { name: 'Sign in' }).waitFor();
    const sdk = await fetch(`${svc.baseUrl}/console/sdk.js`);
    assert.equal(sdk.status, 200);
    assert.match(await sdk.text(), /Marionette/);
    assert.deepEqual(external, []);
  });

  test('a bad key is refused with a clear message and is not kept', async () => {
    await signIn('mk_live_not-a-real-key');
    const err = page.locator('#sign-in-error');
    await err.filter({ hasText: 'not accepted' }).waitFor();
    assert.match(await err.innerText(), /INVALID_CREDENTIAL/);
    assert.equal(await page.evaluate(() => sessionStorage.length), 0);
    assert.equal(await page.locator('nav').isVisible(), false);
  });

  test('sign in: the key lives in session storage only, the balance shows', async () => {
    await signIn(svc.apiKey);
    await page.locator('#balance').filter({ hasText: '200 credits' }).waitFor();
    const stored = await page.evaluate(() => ({
      session: Object.values(sessionStorage),
      local: Object.keys(localStorage).length,
      cookie: document.cookie,
    }));
    assert.deepEqual(stored, { session: [svc.apiKey], local: 0, cookie: '' });
    const violations = await axe();
    assert.deepEqual(seriousOf(violations), [], JSON.stringify(violations));
  });

  test('an upload refused at the door shows the service error and creates nothing', async () => {
    await page.goto(`${svc.baseUrl}/console/#/characters`);
    await page.getByRole('heading', { name: 'New character' }).waitFor();
    const fake = join(media.dir, 'not-a-picture.png');
    await writeFile(fake, 'this is text, not an image\n'.repeat(20));
    await page.locator('.drop input[type=file]').setInputFiles(fake);
    const err = page.locator('[role=alert].error').filter({ hasText: 'UNSUPPORTED_MEDIA' });
    await err.waitFor();
    assert.match(await err.innerText(), /request /);
    assert.equal(await page.locator('.gallery .card').count(), 0);
  });

  test('a Character dropped on the gallery is created, becomes ready and shows its cut-out', async () => {
    await page.goto(`${svc.baseUrl}/console/#/characters`);
    await page.getByLabel('Name (optional)').fill('Dancer');
    const bytes = (await readFile(media.image)).toString('base64');
    // A real drop event carrying a File, as when a picture is dragged from the desktop.
    await page.locator('.drop').evaluate((zone: any, b64: string) => {
      const bin = Uint8Array.from(atob(b64), (ch) => ch.charCodeAt(0));
      const dt = new (globalThis as any).DataTransfer();
      dt.items.add(new (globalThis as any).File([bin], 'dancer.jpg', { type: 'image/jpeg' }));
      zone.dispatchEvent(new (globalThis as any).DragEvent('dragover', { dataTransfer: dt, bubbles: true, cancelable: true }));
      zone.dispatchEvent(new (globalThis as any).DragEvent('drop', { dataTransfer: dt, bubbles: true, cancelable: true }));
    }, bytes);
    const card = page.locator('.gallery .card').filter({ hasText: 'Dancer' });
    await card.waitFor();
    await page.locator('.gallery .card[data-status=ready]').filter({ hasText: 'Dancer' }).waitFor({ timeout: 300_000 });
    const img = page.locator('.gallery .card[data-status=ready] img.thumb');
    await img.waitFor();
    assert.ok(await img.evaluate((el: any) => el.complete && el.naturalWidth > 0));
    await page.screenshot({ path: join(shots, 'characters-desktop.png'), fullPage: true });
  });

  test('a template import appears in the Motions gallery, becomes ready and gets its thumbnail', async () => {
    await page.goto(`${svc.baseUrl}/console/#/motions`);
    await page.getByLabel('Template').selectOption('tpl_wave');
    await page.getByRole('button', { name: 'Import template' }).click();
    const card = page.locator('.gallery .card[data-status=ready]');
    await card.first().waitFor({ timeout: 120_000 });
    assert.match(await card.first().innerText(), /Wave/);
    const img = card.first().locator('img.thumb');
    await img.waitFor();
    assert.ok(await img.evaluate((el: any) => el.complete && el.naturalWidth > 0));
  });

  test('a render from a shared picture and video: progress moves, the transparent result plays over a checkerboard', async () => {
    await page.goto(`${svc.baseUrl}/console/#/playground`);
    const pickers = page.locator('form fieldset');
    await pickers.nth(1).locator('input[type=file]').setInputFiles(media.image);
    await pickers.nth(2).locator('input[type=file]').setInputFiles(media.video);
    await page.getByRole('radio', { name: 'Transparent' }).check();
    await page.locator('#pg-price').filter({ hasText: 'Estimated price: 2 credits' }).waitFor();
    // Every progress value the page shows, in order.
    await page.evaluate(() => {
      const seen: number[] = [];
      (globalThis as any).__progress = seen;
      const bar = document.getElementById('pg-progress') as any;
      new MutationObserver(() => seen.push(bar.value)).observe(bar, { attributes: true });
      const log = document.getElementById('pg-events')!;
      new MutationObserver(() => {
        const m = /(\d+)%$/.exec(log.lastElementChild?.textContent ?? '');
        if (m) seen.push(Number(m[1]));
      }).observe(log, { childList: true });
    });
    await page.getByRole('button', { name: 'Start' }).click();
    const video = page.locator('#pg-result video[data-role=result]');
    await video.waitFor({ state: 'attached', timeout: 600_000 });
    const seen = (await page.evaluate(() => (globalThis as any).__progress)) as number[];
    const between = new Set(seen.filter((v) => v > 0 && v < 100));
    assert.ok(between.size >= 2, `progress values seen: ${seen.join(',')}`);
    for (let i = 1; i < seen.length; i++) assert.ok(seen[i]! >= seen[i - 1]! || seen[i] === 0, `progress went back: ${seen.join(',')}`);
    assert.equal(await page.locator('#pg-progress').evaluate((el: any) => el.value), 100);

    // Nothing plays before Play; after it the clock moves (a 2 s clip may already have ended when read).
    assert.equal(await video.evaluate((v: any) => v.currentTime), 0);
    await page.getByRole('button', { name: 'Play' }).click();
    await page.waitForFunction(() => (document.querySelector('#pg-result video[data-role=result]')?.currentTime ?? 0) > 0.3, null, {
      timeout: 20_000,
    });
    // The composed frame has transparent pixels (background) and opaque ones (the character).
    const alpha = await page.locator('#pg-result canvas').evaluate((c: any) => {
      const d = c.getContext('2d')!.getImageData(0, 0, c.width, c.height).data;
      let clear = 0;
      let solid = 0;
      for (let i = 3; i < d.length; i += 4) {
        if (d[i]! < 16) clear++;
        else if (d[i]! > 240) solid++;
      }
      return { clear, solid, total: d.length / 4 };
    });
    assert.ok(alpha.clear > alpha.total * 0.2 && alpha.solid > alpha.total * 0.01, JSON.stringify(alpha));
    // Colour and mask compose the same instant: played again from the start and sampled while it plays,
    // no composite shows opaque black where the colour video has only its black backdrop (a mask from
    // another frame paints limbs black there: both arms, well over 8% of the figure; dark hair, shoes
    // and compression near the edges stay at a few per cent).
    await video.evaluate((v: any) => {
      v.pause();
      v.currentTime = 0;
    });
    await page.getByRole('button', { name: 'Play' }).click();
    const blackShares = await page.locator('#pg-result canvas').evaluate(async (c: any) => {
      const shares: number[] = [];
      for (let k = 0; k < 12; k++) {
        await new Promise((r) => setTimeout(r, 120));
        const d = c.getContext('2d')!.getImageData(0, 0, c.width, c.height).data;
        let solid = 0;
        let black = 0;
        for (let i = 0; i < d.length; i += 4) {
          if (d[i + 3]! > 200) {
            solid++;
            if (d[i]! + d[i + 1]! + d[i + 2]! < 24) black++;
          }
        }
        shares.push(solid > 0 ? black / solid : 0);
      }
      return shares;
    });
    assert.ok(Math.max(...blackShares) < 0.08, `opaque black share per sample: ${blackShares.map((x) => x.toFixed(3)).join(',')}`);
    const download = page.getByRole('link', { name: 'Download video' });
    assert.match((await download.getAttribute('href')) ?? '', /\/files\//);
    await page.screenshot({ path: join(shots, 'playground-desktop.png'), fullPage: true });
    const violations = await axe();
    assert.deepEqual(seriousOf(violations), [], JSON.stringify(violations));
  });

  test('an H3 video from a prompt: price estimate, polled progress, the result plays', async () => {
    await page.goto(`${svc.baseUrl}/console/#/playground`);
    await page.getByRole('radio', { name: 'H3 video from a prompt' }).check();
    await page.getByLabel('Prompt', { exact: true }).fill('a person waves in a park');
    await page.getByLabel('Duration (seconds, 3–15)').fill('3');
    await page.getByLabel('Resolution').selectOption('4k');
    await page.locator('#pg-price').filter({ hasText: 'Price: 15 credits' }).waitFor();
    await page.getByLabel('Resolution').selectOption('480p');
    await page.locator('#pg-price').filter({ hasText: 'Price: 3 credits' }).waitFor();
    await page.getByRole('button', { name: 'Start' }).click();
    const video = page.locator('#pg-result video[data-role=result]');
    await video.waitFor({ state: 'attached', timeout: 300_000 });
    assert.match(await page.locator('#pg-status').innerText(), /^vid_\w+: ready\.$/);
    await video.evaluate((v: any) => v.play());
    await page.waitForFunction(() => (document.querySelector('#pg-result video[data-role=result]')?.currentTime ?? 0) > 0.3, null, {
      timeout: 20_000,
    });
  });

  test('a character-animation video from an existing Character and an uploaded driving video plays', async () => {
    await page.goto(`${svc.baseUrl}/console/#/playground`);
    await page.getByRole('radio', { name: 'Character animation video' }).check();
    const sets = page.locator('form fieldset');
    // Fieldsets: what to make, render character, render motion, background, then this mode's character and driving video.
    await sets.nth(4).getByRole('radio', { name: 'Existing' }).check();
    const dancer = sets.nth(4).locator('option', { hasText: 'Dancer' });
    await dancer.waitFor({ state: 'attached' });
    await sets
      .nth(4)
      .getByRole('combobox')
      .selectOption((await dancer.getAttribute('value'))!);
    await sets.nth(5).locator('input[type=file]').setInputFiles(media.video);
    await page.locator('#pg-price').filter({ hasText: 'Estimated price: 2 credits' }).waitFor();
    await page.getByRole('button', { name: 'Start' }).click();
    const video = page.locator('#pg-result video[data-role=result]');
    await video.waitFor({ state: 'attached', timeout: 600_000 });
    assert.match(await page.locator('#pg-status').innerText(), /^anim_\w+: ready\.$/);
    await video.evaluate((v: any) => v.play());
    await page.waitForFunction(() => (document.querySelector('#pg-result video[data-role=result]')?.currentTime ?? 0) > 0.3, null, {
      timeout: 20_000,
    });
  });

  test('videos list, credits and galleries at desktop and phone width (screenshots, no horizontal scroll, axe)', async () => {
    await page.goto(`${svc.baseUrl}/console/#/videos`);
    const play = page.getByRole('button', { name: /^Play render_/ });
    await play.first().waitFor();
    await page.getByLabel('Status').selectOption('failed');
    await page.getByText('No video matches.').waitFor();
    await page.getByLabel('Status').selectOption('ready');
    await play.first().click();
    await page.waitForFunction(() => (document.querySelector('#videos-player video[data-role=result]')?.currentTime ?? 0) > 0.3, null, {
      timeout: 20_000,
    });
    await page.screenshot({ path: join(shots, 'videos-desktop.png'), fullPage: true });

    await page.goto(`${svc.baseUrl}/console/#/credits`);
    await page.locator('tbody tr').filter({ hasText: 'Charged at completion' }).first().waitFor();
    await page.screenshot({ path: join(shots, 'credits-desktop.png'), fullPage: true });
    assert.deepEqual(seriousOf(await axe()), []);

    await page.setViewportSize({ width: 390, height: 844 });
    for (const view of ['playground', 'characters', 'motions', 'credits', 'videos']) {
      await page.goto(`${svc.baseUrl}/console/#/${view}`);
      await page.locator(`[data-view=${view}] h2`).waitFor();
      await page.waitForLoadState('networkidle');
      const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
      assert.ok(overflow <= 0, `${view} scrolls sideways by ${overflow}px at 390px`);
      await page.screenshot({ path: join(shots, `${view}-phone.png`), fullPage: true });
      const v = await axe();
      assert.deepEqual(seriousOf(v), [], `${view}: ${JSON.stringify(v)}`);
    }
    await page.setViewportSize({ width: 1280, height: 900 });
    await page.goto(`${svc.baseUrl}/console/#/motions`);
    await page.locator('.gallery img.thumb').first().waitFor();
    await page.screenshot({ path: join(shots, 'motions-desktop.png'), fullPage: true });
    assert.ok((await stat(join(shots, 'motions-desktop.png'))).size > 5000);
  });

  test('delete asks for confirmation, Cancel keeps the Motion and Delete removes it', async () => {
    await page.goto(`${svc.baseUrl}/console/#/motions`);
    const cards = page.locator('.gallery .card');
    await cards.first().waitFor();
    const before = await cards.count();
    await cards
      .first()
      .getByRole('button', { name: /^Delete/ })
      .click();
    await page.getByRole('dialog').getByRole('button', { name: 'Cancel' }).click();
    assert.equal(await cards.count(), before);
    await cards
      .first()
      .getByRole('button', { name: /^Delete/ })
      .click();
    await page.getByRole('dialog').getByRole('button', { name: 'Delete' }).click();
    await page.waitForFunction((n) => document.querySelectorAll('.gallery .card').length === n - 1, before);
  });
});
