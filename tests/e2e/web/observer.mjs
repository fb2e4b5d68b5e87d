// The same page served by a daemon started with web.observer over session_flow.mjs's state
// directory: it shows the earlier session and its transcript, offers no way to change anything,
// and the server refuses a change even when the page's own script asks for one.
//   node observer.mjs <address errand printed> <output directory>

import {
  expectAbsent, expectVisible, fail, fetchFromPage, runScenario, screenshot,
} from './browser.mjs';
import { agentText, project } from './demo_session.mjs';

const observerSentence = 'this interface is an observer and changes nothing';

await runScenario('observer', async ({ page, url, outDir }) => {
  await page.goto(`${url}/#/`);
  const iface = await fetchFromPage(page, '/api/interface');
  if (iface.status !== 200 || iface.body.observer !== true)
    fail(`GET /api/interface answered ${iface.status} ${JSON.stringify(iface.body)}, not an observer`);

  const row = await expectVisible(page, 'session-row', project, 'the earlier session in the list');
  await screenshot(page, outDir, 'observer-sessions');
  await row.getByRole('link').first().click();
  try {
    await page.waitForURL(/#\/s\/[A-Za-z0-9._-]+$/);
  } catch {
    fail(`clicking the session's row did not open its page: still at ${page.url()}`);
  }
  await expectVisible(page, 'entry-agent_text', agentText, 'the earlier session\'s transcript');
  await expectVisible(page, 'observer-note', undefined, 'the session page as an observer');
  await expectAbsent(page, 'send-text', 'the session page as an observer');
  await expectAbsent(page, 'send-button', 'the session page as an observer');
  await screenshot(page, outDir, 'observer-session');

  await page.goto(`${url}/#/new`);
  await expectVisible(page, 'observer-note', undefined, 'the start page as an observer');
  await expectAbsent(page, 'new-prompt', 'the start page as an observer');
  await expectAbsent(page, 'new-start', 'the start page as an observer');
  await screenshot(page, outDir, 'observer-new');

  const refused = await fetchFromPage(page, '/api/sessions', {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ prompt: 'say this must not start', project: 'observer-refused' }),
  });
  if (refused.status !== 403 || refused.body?.error !== observerSentence)
    fail(`POST /api/sessions from the observer's page answered ${refused.status} ` +
         `${JSON.stringify(refused.body)}, not 403 "${observerSentence}"`);
  console.log(`observer refused the start: ${refused.status} ${refused.body.error}`);
});
