// The documentation site. scripts/docs builds it outside the checkout. A link to a page that
// does not exist fails the build (VitePress's own check, which nothing here turns off), and so
// do the two gaps that check leaves: a link to a file that is not a page (it only checks
// pages), and a sidebar entry without its page (it checks only the pages' own links).
import fs from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { defineConfig, type DefaultTheme } from 'vitepress'
import type MarkdownIt from 'markdown-it'

const sourceDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..')

// The order a reader meets things: install it, start a session, configure it, choose a
// sandbox, then the parts around a session, running it for real, and the generated tables.
const sidebar: DefaultTheme.SidebarItem[] = [
  {
    text: 'Getting started',
    items: [
      { text: 'What errand is', link: '/' },
      { text: 'Install', link: '/install' },
      { text: 'Discord', link: '/discord' },
      { text: 'A first session', link: '/sessions' },
    ],
  },
  {
    text: 'Configuration',
    items: [
      { text: 'The configuration file', link: '/configuration' },
      { text: 'The agent', link: '/agent' },
      { text: 'Models: delegate, !model, fallback', link: '/models' },
      { text: 'GitHub', link: '/github' },
    ],
  },
  {
    text: 'Sandbox backends',
    items: [
      { text: 'bailey', link: '/sandbox-bailey' },
      { text: 'podman', link: '/sandbox-podman' },
      { text: 'incus', link: '/sandbox-incus' },
      { text: 'incus: the guest\'s first process', link: '/sandbox-incus-guest-init' },
      { text: 'The Incus host', link: '/incus-host' },
    ],
  },
  {
    text: 'Network',
    items: [{ text: 'The egress broker', link: '/broker' }],
  },
  {
    text: 'Using it',
    items: [
      { text: 'Chat commands', link: '/commands' },
      { text: 'The web interface', link: '/web' },
    ],
  },
  {
    text: 'Extending',
    items: [{ text: 'Plugins', link: '/plugins' }],
  },
  {
    text: 'Operations',
    items: [
      { text: 'Running it as a service', link: '/service' },
      { text: 'Preparing a host: errand setup', link: '/setup' },
      { text: 'The errand command and threads', link: '/cli' },
      { text: 'Under load and faults', link: '/reliability' },
      { text: 'remote-run (being built)', link: '/remote' },
      { text: 'Tests and CI', link: '/testing' },
    ],
  },
  {
    text: 'Reference',
    items: [
      { text: 'Configuration keys', link: '/reference/configuration' },
      { text: 'Chat commands', link: '/reference/commands' },
      { text: 'Reactions and status lines', link: '/reference/characters' },
    ],
  },
  {
    text: 'Internals',
    items: [{ text: 'How errand is put together', link: '/design' }],
  },
]

// Every sidebar entry names a page of the site ('/' is index.md, '/a/b' is a/b.md).
for (const group of sidebar) {
  for (const item of group.items ?? []) {
    const page = item.link === '/' ? 'index.md' : `${item.link!.replace(/^\//, '')}.md`
    if (!fs.existsSync(path.join(sourceDir, page)))
      throw new Error(`the sidebar links ${item.link} ("${item.text}"), but ${page} does not exist`)
  }
}

// A relative link that is not a page must name a file inside the site: one outside docs/ (the
// repository's README, config.example.json) is not published, and a missing one is dead.
// Pages (.md, .html, or no extension) are left to VitePress's own check.
function refuseLinksOutOfTheSite(md: MarkdownIt) {
  md.core.ruler.push('errand_links_stay_in_the_site', (state) => {
    const page: string | undefined = state.env.path
    if (!page) return
    for (const block of state.tokens) {
      for (const token of block.children ?? []) {
        if (token.type !== 'link_open') continue
        const href = token.attrGet('href') ?? ''
        if (/^([a-z][a-z0-9+.-]*:|#|\/\/)/i.test(href)) continue
        const target = href.replace(/[?#].*$/, '')
        const file = href.startsWith('/')
          ? path.join(sourceDir, target)
          : path.resolve(path.dirname(page), target)
        const where = path.relative(sourceDir, page)
        if (path.relative(sourceDir, file).startsWith('..'))
          throw new Error(`${where}: the link ${href} leaves the documentation; link a page of the site, or write the path as text`)
        const extension = path.extname(target)
        if (extension && extension !== '.md' && extension !== '.html' && !fs.existsSync(file))
          throw new Error(`${where}: the link ${href} names a file that does not exist`)
      }
    }
  })
}

export default defineConfig({
  title: 'errand',
  description: 'A coding agent driven from a chat channel, inside a sandbox it cannot leave.',
  lang: 'en',
  themeConfig: {
    search: { provider: 'local' },
    outline: { level: [2, 3] },
    sidebar,
  },
  markdown: { config: refuseLinksOutOfTheSite },
})
