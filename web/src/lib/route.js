// The page's address is its hash (#/s/<thread>/files?path=src), so the server serves one
// index.html for every page and a reload keeps the page.

const threadPattern = /^[A-Za-z0-9._-]+$/;

export function parseRoute(hash) {
  const text = (hash || '').replace(/^#/, '') || '/';
  const [path, query = ''] = text.split('?', 2);
  const params = new URLSearchParams(query);
  const parts = path.split('/').filter(Boolean);
  if (parts.length === 0) return { page: 'sessions' };
  if (parts.length === 1 && parts[0] === 'new') return { page: 'new' };
  if (parts[0] === 's' && parts.length >= 2) {
    const thread = decodeURIComponent(parts[1]);
    if (!threadPattern.test(thread)) return { page: 'unknown', path };
    const view = parts[2] ?? '';
    if (parts.length === 2) return { page: 'session', thread };
    if (parts.length === 3 && view === 'files')
      return { page: 'files', thread, path: params.get('path') || '.', file: params.get('file') };
    if (parts.length === 3 && view === 'calls') return { page: 'calls', thread };
  }
  return { page: 'unknown', path };
}

export function sessionHref(thread) {
  return `#/s/${encodeURIComponent(thread)}`;
}

// A directory of the project browser, and optionally one of its files opened beneath it.
export function filesHref(thread, path = '.', file = null) {
  const params = new URLSearchParams();
  if (path && path !== '.') params.set('path', path);
  if (file) params.set('file', file);
  const query = params.toString();
  return `${sessionHref(thread)}/files${query ? `?${query}` : ''}`;
}

export function callsHref(thread) {
  return `${sessionHref(thread)}/calls`;
}

// The crumbs of a project path: "." first, then each directory down to the path itself.
export function breadcrumbs(path) {
  const crumbs = [{ name: 'project', path: '.' }];
  const parts = (path || '.').split('/').filter((part) => part && part !== '.');
  parts.forEach((name, i) => crumbs.push({ name, path: parts.slice(0, i + 1).join('/') }));
  return crumbs;
}

export function childPath(dir, name) {
  return !dir || dir === '.' ? name : `${dir.replace(/\/$/, '')}/${name}`;
}
