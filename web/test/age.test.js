import { test } from 'node:test';
import assert from 'node:assert/strict';
import { formatAge } from '../src/lib/age.js';

const start = '2026-12-01T21:00:00.000Z';
const after = (seconds) => Date.parse(start) + seconds * 1000;

test('an age is the largest whole unit, with the next one while it is small', () => {
  assert.equal(formatAge(start, after(0.4)), 'now');
  assert.equal(formatAge(start, after(42)), '42s');
  assert.equal(formatAge(start, after(60)), '1m');
  assert.equal(formatAge(start, after(95)), '1m 35s');
  assert.equal(formatAge(start, after(12 * 60 + 59)), '12m');
  assert.equal(formatAge(start, after(6000)), '1h 40m');
  assert.equal(formatAge(start, after(26 * 3600)), '1d 2h');
  assert.equal(formatAge(start, after(12 * 86400 + 5 * 3600)), '12d');
});

test('a time in the future (a browser clock behind the server) reads as now', () => {
  assert.equal(formatAge(start, after(-30)), 'now');
});

test('a time that is not ISO-8601 gives no age rather than NaN', () => {
  assert.equal(formatAge('yesterday', after(10)), '');
  assert.equal(formatAge(undefined, after(10)), '');
});

test('milliseconds in the server time count', () => {
  assert.equal(formatAge('2026-12-01T21:00:00.900Z', after(1.5)), 'now');
  assert.equal(formatAge('2026-12-01T21:00:00.100Z', after(1.5)), '1s');
});
