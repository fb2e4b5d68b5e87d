// A tool call's output as the page shows it, in a <pre>. An agent that writes markdown (Claude
// Code) sends a command's output as one fenced block (```console ... ```), which a chat service
// renders as code but a <pre> would show with its fences; that one block is unwrapped. Anything
// else, several blocks or text around one included, is shown as it came.
export function toolOutputText(output) {
  if (typeof output !== 'string') return '';
  const fenced = /^```[A-Za-z0-9_+.-]*\n([\s\S]*?)\n?```[ \t]*\n?$/.exec(output);
  if (!fenced || fenced[1].includes('\n```')) return output;
  return fenced[1];
}
