// Retry timing is pure arithmetic over injected randomness and time, so exact delays are asserted here rather than through HTTP.
import { describe, expect, it } from 'vitest';
import { fullJitterBackoffMs } from './full-jitter-backoff.js';
import { parseRetryAfterMs } from './retry-after.js';

describe('parseRetryAfterMs', () => {
  it('reads delay-seconds as milliseconds', () => {
    expect(parseRetryAfterMs('0', 0)).toBe(0);
    expect(parseRetryAfterMs(' 120 ', 0)).toBe(120_000);
    expect(parseRetryAfterMs('1.5', 0)).toBe(1_500);
  });

  it('reads an HTTP-date as the time left until it, never negative', () => {
    const date = 'Thu, 01 Jan 1970 00:00:10 GMT';
    expect(parseRetryAfterMs(date, 4_000)).toBe(6_000);
    expect(parseRetryAfterMs(date, 60_000)).toBe(0);
    expect(parseRetryAfterMs('Thursday, 01-Jan-70 00:00:10 GMT', 4_000)).toBe(6_000);
    expect(parseRetryAfterMs('Thu Jan  1 00:00:10 1970', 4_000)).toBe(6_000);
  });

  it('gives up on absent or unparseable values', () => {
    expect(parseRetryAfterMs(null, 0)).toBeUndefined();
    expect(parseRetryAfterMs('', 0)).toBeUndefined();
    expect(parseRetryAfterMs('soon', 0)).toBeUndefined();
    expect(parseRetryAfterMs('-5', 0)).toBeUndefined();
    expect(parseRetryAfterMs('2001-05-01', 0)).toBeUndefined();
  });
});

describe('fullJitterBackoffMs', () => {
  const policy = { baseMs: 100, maxMs: 1_000 };

  it('draws uniformly below a ceiling that doubles per attempt and is capped', () => {
    expect([1, 2, 3, 4, 5, 6].map((attempt) => fullJitterBackoffMs(attempt, policy, () => 0.5))).toEqual([50, 100, 200, 400, 500, 500]);
    expect(fullJitterBackoffMs(3, policy, () => 0)).toBe(0);
  });

  it('waits at least what the server asked for, even above the cap', () => {
    expect(fullJitterBackoffMs(1, policy, () => 0.5, 3_000)).toBe(3_000);
    expect(fullJitterBackoffMs(4, policy, () => 0.5, 10)).toBe(400);
  });

  it('stays within bounds whatever the random source returns', () => {
    expect(fullJitterBackoffMs(1, policy, () => Number.NaN)).toBe(0);
    expect(fullJitterBackoffMs(1, policy, () => 7)).toBe(100);
  });
});
