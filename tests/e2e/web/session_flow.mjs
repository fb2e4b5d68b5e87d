// A person's first session from the page alone: start it, watch the agent's output arrive while
// the turn runs, read the file it wrote in the project browser, look at its provider calls, and
// end it with !stop from the send box. Prints "thread: <id>" for the test that checks threads.db.
//   node session_flow.mjs <address errand printed> <output directory>

import {
  expectVisible, fail, fetchFromPage, patience, runScenario, screenshot, startSession,
} from './browser.mjs';
import { agentText, project } from './demo_session.mjs';

// The scripted agent's directives (docs/agent.md). errand writes the agent's text to the
// transcript when the next tool call starts, and a tool call when it ends, so the 3 s command
// between the text and the echo lets the test see the text on the page before web-42 exists.
const prompt = [
  `say ${agentText}`,
  'run sleep 3',
  'run echo web-$((6*7))',
  'write notes.txt from the page\\n',
  'provider a word for the calls page',
].join('\n');

await runScenario('session_flow', async ({ page, url, outDir }) => {
  const thread = await startSession(page, url, outDir, prompt, project);

  await expectVisible(page, 'entry-agent_text', agentText, 'the agent\'s text, live');
  // The echo runs 3 s after the text: its output on the page already would mean the page
  // showed the turn only once it was over, not as it happened.
  if (await page.getByTestId('transcript').getByText('web-42').count() !== 0)
    fail('the command\'s output was on the page as soon as the agent\'s text: the transcript did not arrive live');
  await expectVisible(page, 'entry-tool', 'web-42', 'the tool call\'s output, live');
  await expectVisible(page, 'entry-turn_end', undefined, 'the end of the turn');
  await screenshot(page, outDir, 'session');

  await page.goto(`${url}/#/s/${encodeURIComponent(thread)}/files`);
  const entry = await expectVisible(page, 'files-entry', 'notes.txt', 'the project browser');
  await entry.getByRole('link', { name: 'notes.txt' }).click();
  await expectVisible(page, 'file-text', 'from the page', 'the text of notes.txt');
  await screenshot(page, outDir, 'files');

  await page.goto(`${url}/#/s/${encodeURIComponent(thread)}/calls`);
  await expectVisible(page, 'receipts-table', '/v1/messages', 'the provider calls page');
  await screenshot(page, outDir, 'calls');

  await page.goto(`${url}/#/s/${encodeURIComponent(thread)}`);
  await (await expectVisible(page, 'send-text', undefined, 'the send box')).fill('!stop');
  await (await expectVisible(page, 'send-button', undefined, 'the send box')).click();
  try {
    await page.getByText('the session stopped').first().waitFor({ state: 'visible' });
  } catch {
    fail('errand\'s answer to !stop ("the session stopped") never appeared on the session page');
  }

  await page.goto(`${url}/#/`);
  const row = await expectVisible(page, 'session-row', thread, 'the stopped session in the list');
  if (!(await row.innerText()).includes(project))
    fail(`the list's row of ${thread} does not name its project ${project}: ${await row.innerText()}`);
  try {
    await row.filter({ hasText: /resumable|closed/ }).waitFor({ state: 'visible', timeout: patience });
  } catch {
    fail(`the list does not show the session stopped; its row reads: ${await row.innerText()}`);
  }
  await screenshot(page, outDir, 'sessions');

  const api = await fetchFromPage(page, `/api/sessions/${encodeURIComponent(thread)}`);
  if (api.status !== 200 || api.body.state !== 'resumable')
    fail(`GET /api/sessions/${thread} answered ${api.status} ${JSON.stringify(api.body)}, not a resumable session`);
});
