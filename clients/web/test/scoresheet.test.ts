// The bullet's numbers (src/scoresheet.ts): written as running totals, the oldest cut first.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { historyText, running } from '../src/scoresheet';

test('running totals skip the deals that wrote nothing', () => {
  assert.deepEqual(running([0, 2, 0, 4, -1]), [2, 6, 5]);
  assert.deepEqual(running([0, 0]), []);
});

test('the history before the total, cut from the left to fit', () => {
  assert.equal(historyText([2, 6, 10], 10, 20), '2.6.');
  assert.equal(historyText([], 0, 20), '');
  // A ruling moved the total off the last running value: the whole history is kept.
  assert.equal(historyText([2, 6], 4, 20), '2.6.');
  const cut = historyText([10, 20, 30, 40, 50, 60], 60, 10);
  assert.ok(cut.startsWith('…'));
  assert.ok(cut.length + 2 <= 10);
  assert.ok(cut.endsWith('50.'));
});
