import { newId, pooledRandomBytes, randomAlphanumeric } from '../src/foundation/ids';

// src/foundation/ids.ts: random values drawn from the cryptographic source a pool at a time, each byte
// handed out once (ids, and the IV of every sealed value).

test('pooled random bytes: the length asked, never the same bytes twice, across refills of the pool', () => {
  const seen = new Set<string>();
  for (let index = 0; index < 2_000; index += 1) {
    const bytes = pooledRandomBytes(12);
    expect(bytes).toHaveLength(12);
    seen.add(bytes.toString('hex'));
  }
  // 24,000 bytes: several pools of 4,096. A repeated 96-bit value would mean bytes handed out twice.
  expect(seen.size).toBe(2_000);
  expect(pooledRandomBytes(10_000)).toHaveLength(10_000);
});

test('ids: their prefix and 20 characters of [A-Za-z0-9]', () => {
  expect(newId('bk')).toMatch(/^bk_[A-Za-z0-9]{20}$/);
  expect(randomAlphanumeric(32)).toMatch(/^[A-Za-z0-9]{32}$/);
});
