import { test } from 'node:test';
import assert from 'node:assert/strict';
import { toolOutputText } from '../src/lib/tool_output.js';

test('one fenced block, as Claude Code sends a command\'s output, is shown without its fences', () => {
  assert.equal(toolOutputText('```console\nerrand-42 in /workspace\n```'), 'errand-42 in /workspace');
  assert.equal(toolOutputText('```\nline one\nline two\n```\n'), 'line one\nline two');
  assert.equal(toolOutputText('```sh\n```'), '');
});

test('output that is not one whole fenced block is shown as it came', () => {
  const plain = 'errand-42 in /workspace\n';
  assert.equal(toolOutputText(plain), plain);
  const two = '```\na\n```\n```\nb\n```';
  assert.equal(toolOutputText(two), two);
  const around = 'before\n```\na\n```';
  assert.equal(toolOutputText(around), around);
  const unclosed = '```console\nstill running';
  assert.equal(toolOutputText(unclosed), unclosed);
});

test('no output gives an empty text, never "undefined"', () => {
  assert.equal(toolOutputText(undefined), '');
  assert.equal(toolOutputText(null), '');
});
