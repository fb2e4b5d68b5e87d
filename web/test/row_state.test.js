import { test } from 'node:test';
import assert from 'node:assert/strict';
import { stateClass, stateLabel } from '../src/lib/row_state.js';

test('a queued session shows its place in the queue', () => {
  assert.equal(stateLabel({ state: 'queued', queue_position: 3 }), 'queued #3');
  assert.equal(stateLabel({ state: 'queued', queue_position: null }), 'queued');
});

test('the other states read as their own word', () => {
  for (const state of ['starting', 'running', 'idle', 'stopping', 'resumable', 'closed'])
    assert.equal(stateLabel({ state, queue_position: null }), state);
});

test('a state the page does not know is shown as unknown, not as a known one', () => {
  assert.equal(stateLabel({ state: 'paused' }), 'unknown state "paused"');
  assert.equal(stateClass({ state: 'paused' }), 'state-unknown');
  assert.equal(stateLabel({}), 'no state');
  assert.equal(stateClass({ state: 'running' }), 'state-running');
});
