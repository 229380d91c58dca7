import sharp from 'sharp';

/**
 * Decodes every byte of an image and reports why it cannot be decoded, or null when it can.
 * A probe reads only the header, so a truncated or corrupt PNG/JPEG would pass the door and fail
 * later inside a worker, after credits were taken. Decoding to a small thumbnail still reads the
 * whole compressed stream (JPEG shrink-on-load skips DCT work, not data), so truncation is caught
 * while memory stays a few MB even for 4096 px sides.
 */
const THUMB_SIDE = 256;

export async function imageDecodeFailure(file: string, maxPixels: number): Promise<string | null> {
  try {
    await sharp(file, { failOn: 'error', sequentialRead: true, limitInputPixels: maxPixels })
      .resize(THUMB_SIDE, THUMB_SIDE, { fit: 'inside', withoutEnlargement: true })
      .raw()
      .toBuffer();
    return null;
  } catch (e) {
    return e instanceof Error ? e.message : String(e);
  }
}
