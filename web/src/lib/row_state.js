// What a session's state reads as on the page. The server sends the state word and, for a queued
// session, its place in the queue; the page never guesses a state the server did not send.

const known = new Set(['starting', 'running', 'queued', 'idle', 'stopping', 'resumable', 'closed']);

export function stateLabel(row) {
  const state = row?.state;
  if (state === 'queued') {
    const position = row.queue_position;
    return Number.isInteger(position) ? `queued #${position}` : 'queued';
  }
  if (known.has(state)) return state;
  return state ? `unknown state "${state}"` : 'no state';
}

// The CSS class of the badge: one per known state, so an unknown word is visibly not styled.
export function stateClass(row) {
  return known.has(row?.state) ? `state-${row.state}` : 'state-unknown';
}
