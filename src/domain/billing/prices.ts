import { MILLI_PER_CREDIT } from './billing.service.js';

/**
 * Prices of generated videos (DECISIONS "Videos"), in milli-credits. `quality` never changes a price.
 * - H3 (`vid_`): ceil(duration_s) credits per clip at 480p-2k, five times that at 4k; reserved at
 *   creation and settled at exactly that amount when ready.
 * - Character animation (`anim_`): ceil(driving seconds) credits, settled at that amount.
 */
export const H3_RESOLUTIONS = ['480p', '768p', '1080p', '2k', '4k'] as const;
export type H3Resolution = (typeof H3_RESOLUTIONS)[number];

const H3_CREDITS_PER_SECOND: Record<H3Resolution, number> = { '480p': 1, '768p': 1, '1080p': 1, '2k': 1, '4k': 5 };

export function h3PriceMilli(durationS: number, resolution: H3Resolution): number {
  return Math.ceil(durationS) * H3_CREDITS_PER_SECOND[resolution] * MILLI_PER_CREDIT;
}

export function animationPriceMilli(drivingMs: number): number {
  return Math.ceil(drivingMs / 1000) * MILLI_PER_CREDIT;
}
