// The session the scenarios share: session_flow.mjs starts it, observer.mjs finds it again after
// the daemon restarts as an observer over the same state directory.

export const project = 'webdemo';
export const agentText = 'hello from the web';
