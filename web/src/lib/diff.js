// Sorts the lines of a unified diff into the kinds the page colours differently. A line is
// judged by its first character only, as diff(1) writes them; the file headers ("--- a/x",
// "+++ b/x") are told apart from removed and added lines so they are not coloured as changes.

export function classifyDiffLine(line) {
  if (line.startsWith('+++ ') || line.startsWith('--- ')) return 'header';
  if (line.startsWith('diff ') || line.startsWith('index ')) return 'header';
  if (line.startsWith('@@')) return 'hunk';
  if (line.startsWith('+')) return 'added';
  if (line.startsWith('-')) return 'removed';
  if (line.startsWith('\\')) return 'note';
  return 'context';
}

export function diffLines(text) {
  if (!text) return [];
  const lines = text.split('\n');
  // A diff ends with a newline, which would otherwise read as one empty context line.
  if (lines.at(-1) === '') lines.pop();
  return lines.map((line) => ({ kind: classifyDiffLine(line), text: line }));
}
