import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * HMAC-SHA256 signatures for URLs the API serves itself (disk storage reads and upload PUTs).
 * The signature covers method, object key and expiry, so a GET URL cannot be used to PUT and an
 * expired URL cannot be extended by editing the query.
 */
export class UrlSigner {
  constructor(private readonly secret: string) {
    if (secret.length < 16) throw new Error('signing secret too short');
  }

  sign(method: 'GET' | 'PUT', key: string, expiresAtSec: number): string {
    return createHmac('sha256', this.secret).update(`${method}\n${key}\n${expiresAtSec}`).digest('base64url');
  }

  verify(
    method: 'GET' | 'PUT',
    key: string,
    expiresAtSec: number,
    signature: string,
    nowSec = Math.floor(Date.now() / 1000),
  ): 'ok' | 'expired' | 'invalid' {
    const expected = Buffer.from(this.sign(method, key, expiresAtSec));
    const given = Buffer.from(signature);
    if (expected.length !== given.length || !timingSafeEqual(expected, given)) return 'invalid';
    return expiresAtSec < nowSec ? 'expired' : 'ok';
  }
}
