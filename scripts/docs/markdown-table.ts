// Renders a GitHub-flavoured markdown table with cell text escaped for pipes and newlines.
export function markdownTable(headers: readonly string[], rows: readonly (readonly string[])[]): string {
  const line = (cells: readonly string[]) => `| ${cells.map(escapeCell).join(' | ')} |`;
  return [line(headers), line(headers.map(() => '---')), ...rows.map(line)].join('\n');
}

function escapeCell(text: string): string {
  // Already-escaped pipes (`\|`) are kept; bare ones would end the cell.
  return text.replace(/\r?\n/g, ' ').replace(/(?<!\\)\|/g, '\\|');
}
