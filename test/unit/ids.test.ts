import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { isIdOf, newId, ulid, videoFamily } from '../../src/contracts/ids.js';

describe('public IDs', () => {
  it('are a family prefix plus a 26-character Crockford ULID', () => {
    const id = newId('character');
    assert.match(id, /^char_[0-9A-HJKMNP-TV-Z]{26}$/);
    assert.ok(isIdOf('character', id));
    assert.ok(!isIdOf('motion', id));
  });

  it('sort by creation, even within one millisecond', () => {
    const ids = Array.from({ length: 2000 }, () => ulid(1_700_000_000_000));
    const sorted = [...ids].sort();
    assert.deepEqual(ids, sorted);
    assert.equal(new Set(ids).size, ids.length);
  });

  it('refuse malformed and foreign IDs', () => {
    for (const bad of [
      'char_',
      'char_123',
      'CHAR_01HZZZZZZZZZZZZZZZZZZZZZZZ',
      'mot_01J0000000000000000000000A',
      `char_${'I'.repeat(26)}`,
      42,
      null,
    ]) {
      assert.equal(isIdOf('character', bad), false, String(bad));
    }
    assert.equal(videoFamily(newId('render')), 'render');
    assert.equal(videoFamily(newId('h3Video')), 'h3Video');
    assert.equal(videoFamily(newId('animation')), 'animation');
    assert.equal(videoFamily(newId('motion')), null);
  });
});
