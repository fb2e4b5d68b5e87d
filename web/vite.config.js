import { defineConfig } from 'vite';
import { svelte } from '@sveltejs/vite-plugin-svelte';

// The daemon serves these files itself under a Content-Security-Policy of default-src 'self':
// no inline script, no CDN, no external font. Where the output goes is CMake's to say.
export default defineConfig({
  plugins: [svelte()],
  base: '/',
  // The CMake build stages the sources beside a link to the shared, root-owned npm packages;
  // Vite's cache goes to the stage instead of into them.
  cacheDir: process.env.ERRAND_WEB_CACHE_DIR || 'node_modules/.vite',
  build: {
    assetsInlineLimit: 0,
    modulePreload: { polyfill: false },
    sourcemap: false,
    // What the bundle holds from npm packages, with their licence texts: the packages' copyright
    // file is written from it (cmake/ErrandCopyright.cmake). build_front_end.cmake moves it out
    // of the served directory.
    license: { fileName: 'bundled-licenses.json' },
  },
});
