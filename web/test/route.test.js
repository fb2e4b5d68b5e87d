import { test } from 'node:test';
import assert from 'node:assert/strict';
import { breadcrumbs, childPath, filesHref, parseRoute, sessionHref } from '../src/lib/route.js';

test('each page has its hash', () => {
  assert.deepEqual(parseRoute(''), { page: 'sessions' });
  assert.deepEqual(parseRoute('#/'), { page: 'sessions' });
  assert.deepEqual(parseRoute('#/new'), { page: 'new' });
  assert.deepEqual(parseRoute('#/s/web-7.a_b'), { page: 'session', thread: 'web-7.a_b' });
  assert.deepEqual(parseRoute('#/s/t1/calls'), { page: 'calls', thread: 't1' });
  assert.deepEqual(parseRoute('#/s/t1/files?path=src%2Flib&file=src%2Flib%2Fa.c'), {
    page: 'files',
    thread: 't1',
    path: 'src/lib',
    file: 'src/lib/a.c',
  });
  assert.deepEqual(parseRoute('#/s/t1/files'), { page: 'files', thread: 't1', path: '.', file: null });
});

test('a thread id outside [A-Za-z0-9._-] or an unknown page is no page', () => {
  assert.equal(parseRoute('#/s/a%2Fb').page, 'unknown');
  assert.equal(parseRoute('#/s/t1/other').page, 'unknown');
  assert.equal(parseRoute('#/settings').page, 'unknown');
});

test('links and the parser agree', () => {
  const href = filesHref('t1', 'a b/c', 'a b/c/d&e.txt');
  assert.deepEqual(parseRoute(href), { page: 'files', thread: 't1', path: 'a b/c', file: 'a b/c/d&e.txt' });
  assert.equal(filesHref('t1'), '#/s/t1/files');
  assert.equal(sessionHref('t1'), '#/s/t1');
});

test('breadcrumbs lead from the project down to the directory', () => {
  assert.deepEqual(breadcrumbs('.'), [{ name: 'project', path: '.' }]);
  assert.deepEqual(breadcrumbs('src/lib'), [
    { name: 'project', path: '.' },
    { name: 'src', path: 'src' },
    { name: 'lib', path: 'src/lib' },
  ]);
  assert.equal(childPath('.', 'a'), 'a');
  assert.equal(childPath('src', 'a'), 'src/a');
});
