import { test } from 'node:test';
import assert from 'node:assert/strict';
import { classifyDiffLine, diffLines } from '../src/lib/diff.js';

test('each kind of unified-diff line gets its own class', () => {
  assert.equal(classifyDiffLine('--- a/src/main.c'), 'header');
  assert.equal(classifyDiffLine('+++ b/src/main.c'), 'header');
  assert.equal(classifyDiffLine('diff --git a/x b/x'), 'header');
  assert.equal(classifyDiffLine('@@ -1,3 +1,4 @@ int main()'), 'hunk');
  assert.equal(classifyDiffLine('+  return 0;'), 'added');
  assert.equal(classifyDiffLine('-  return 1;'), 'removed');
  assert.equal(classifyDiffLine(' unchanged'), 'context');
  assert.equal(classifyDiffLine(''), 'context');
  assert.equal(classifyDiffLine('\\ No newline at end of file'), 'note');
});

test('a removed line that starts with dashes is still a removal, not a header', () => {
  assert.equal(classifyDiffLine('--x'), 'removed');
  assert.equal(classifyDiffLine('++counter;'), 'added');
});

test('a diff is split into lines without a phantom line after its final newline', () => {
  const text = '--- a/f\n+++ b/f\n@@ -1 +1 @@\n-old\n+new\n';
  assert.deepEqual(
    diffLines(text).map((line) => line.kind),
    ['header', 'header', 'hunk', 'removed', 'added'],
  );
  assert.equal(diffLines(text)[4].text, '+new');
  assert.deepEqual(diffLines(''), []);
  assert.deepEqual(diffLines(undefined), []);
});
