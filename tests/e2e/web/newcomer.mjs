// A newcomer's first session, in the page errand printed the address of: a prompt and a project
// on the start page, and the bundled agent's command run in the sandbox, its output on the page
// when the turn ends. The VM's newcomer scenario (tests/vm/newcomer_scenario.cpp) runs it against
// errand's built-in default in an emulated guest, so each wait is long. Prints "thread: <id>".
//   node newcomer.mjs <address errand printed> <output directory>

import {
  expectVisible, fail, runScenario, screenshot, startSession,
} from './browser.mjs';

// What the fake provider says once the agent sent it the output of the command it had the agent
// run (tests/vm/newcomer_scenario.cpp asks for it): the project as the sandbox places it. Its
// words on the page mean the command ran in the sandbox and its output went back to the model,
// whichever agent ran it (Claude Code's tool entry shows the output, codex's only the command).
const reported = 'The command printed: errand-42 in /workspace';
// Under QEMU's emulation node and Claude Code start in tens of seconds, not one.
const emulatedPatience = 300_000;

await runScenario('newcomer', async ({ page, url, outDir }) => {
  page.setDefaultTimeout(emulatedPatience);
  await startSession(page, url, outDir, 'run the command for me', 'first');
  await expectVisible(page, 'entry-tool', 'errand-$((6*7))', 'the agent\'s command');
  await expectVisible(page, 'entry-agent_text', reported, 'the command\'s output, as the model saw it');
  await expectVisible(page, 'entry-turn_end', undefined, 'the end of the turn');
  // Claude Code sends the output as a markdown code block; the page shows the output, not the
  // fences around it.
  const tool = await page.getByTestId('entry-tool').first().innerText();
  if (tool.includes('```')) fail(`the tool entry shows markdown fences: ${tool}`);
  await screenshot(page, outDir, 'session');
});
