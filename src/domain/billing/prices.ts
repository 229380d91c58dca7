import type { CharactersTable } from '../../infra/db/schema.js';
import type { H3Resolution } from '../../contracts/enums.js';

/**
 * The price table: every billable thing, its price and the rule that turns a price into a
 * reservation, in one place (interface-v1 section 1 "Pricing" and DECISIONS "Credits", "Videos",
 * "3D outputs"). Amounts are kept as integer thousandths of a credit ("milli-credits"); 1 credit =
 * $0.01. A new billable thing adds a row here; services never spell a price or a rounding rule.
 */
export const MILLI_PER_CREDIT = 1000;

export function creditsToMilli(credits: number): number {
  return Math.round(credits * MILLI_PER_CREDIT);
}

export function milliToCredits(milli: number): number {
  return Math.round(milli) / MILLI_PER_CREDIT;
}

/**
 * The reservation rule for anything priced per second: whole credits for every started second
 * (`ceil(seconds)`), so a reservation always covers the settled amount of a per-second price.
 */
export function perStartedSecondMilli(durationMs: number, creditsPerSecond = 1): number {
  return Math.ceil(durationMs / 1000) * creditsPerSecond * MILLI_PER_CREDIT;
}

/** Renders (`render_`): 1 credit per second of finished video (one character per render). */
export const RENDER_CREDITS_PER_SECOND = 1;

/** What a render reserves at creation for an estimated duration (or the worker, once a URL motion is measured). */
export function renderReservationMilli(estimatedMs: number): number {
  return perStartedSecondMilli(estimatedMs, RENDER_CREDITS_PER_SECOND);
}

/** What a finished render costs: its measured duration, to the thousandth of a credit. */
export function renderPriceMilli(durationMs: number): number {
  return Math.round((durationMs * RENDER_CREDITS_PER_SECOND * MILLI_PER_CREDIT) / 1000);
}

/**
 * Characters: flat prices in credits, charged when the Character is accepted and refunded if its
 * processing fails. `vsplat` (3D Gaussian splat) is 25 credits, 30 with `enhance` (which replaces
 * the 25); `enhance` has no effect on `render`; `all` pays both.
 */
export const CHARACTER_PRICES = {
  render: 1,
  vsplat: 25,
  vsplatEnhanced: 30,
} as const;

/** A Character's price in credits. */
export function characterPrice(type: CharactersTable['type'], enhance: boolean): number {
  const vsplat = enhance ? CHARACTER_PRICES.vsplatEnhanced : CHARACTER_PRICES.vsplat;
  if (type === 'render') return CHARACTER_PRICES.render;
  if (type === 'vsplat') return vsplat;
  return CHARACTER_PRICES.render + vsplat;
}

/** The Character prices as the interface documents them: `render 1, vsplat 25 (30 with enhance), all 26 (31 with enhance)`. */
export function characterPriceList(): string {
  const both = (t: 'vsplat' | 'all') => `${t} ${characterPrice(t, false)} (${characterPrice(t, true)} with enhance)`;
  return `render ${characterPrice('render', false)}, ${both('vsplat')}, ${both('all')}`;
}

export function characterPriceMilli(type: CharactersTable['type'], enhance: boolean): number {
  return creditsToMilli(characterPrice(type, enhance));
}

/**
 * The 3D part of a Character's price: what is refunded when only its vsplat fails (the 2D part was
 * delivered and stays usable). `vsplat` 25 (30 with enhance), for `vsplat` and `all` alike; so a
 * failed `vsplat` Character gets everything back and a failed `all` keeps the render part's 1.
 */
export function characterVsplatPartMilli(type: CharactersTable['type'], enhance: boolean): number {
  if (type === 'render') return 0;
  return creditsToMilli(enhance ? CHARACTER_PRICES.vsplatEnhanced : CHARACTER_PRICES.vsplat);
}

/** Motions (including their 3D `glb` animation) cost nothing. */
export const MOTION_PRICE_MILLI = 0;

/**
 * H3 generated videos (`vid_`): `ceil(duration_s)` credits per clip at 480p-2k, five times that at
 * 4k; reserved at creation and settled at exactly that amount. `quality` never changes a price.
 */
const H3_CREDITS_PER_SECOND: Record<H3Resolution, number> = { '480p': 1, '768p': 1, '1080p': 1, '2k': 1, '4k': 5 };

export function h3PriceMilli(durationS: number, resolution: H3Resolution): number {
  return perStartedSecondMilli(durationS * 1000, H3_CREDITS_PER_SECOND[resolution]);
}

/** Character-animation videos (`anim_`): `ceil(driving seconds)` credits, reserved and settled at that amount. */
export function animationPriceMilli(drivingMs: number): number {
  return perStartedSecondMilli(drivingMs);
}
