/** Markdown helpers for the report: tables and number formatting. */

export type Cell = string | number;
export type Align = 'left' | 'right';

/**
 * A GitHub-flavoured Markdown table with padded, aligned columns (the layout Biome's formatter gives, so a
 * report under bench/ passes `biome check`). The first column is left-aligned, the rest right-aligned,
 * unless `align` says otherwise.
 */
export const table = (
  headers: readonly string[],
  rows: readonly (readonly Cell[])[],
  align?: readonly Align[],
): string => {
  const cellText = (cell: Cell | undefined) =>
    String(cell ?? '')
      .replaceAll('|', '\\|')
      .replace(/\s*\n\s*/g, ' ');
  const body = rows.map((row) => headers.map((_, index) => cellText(row[index])));
  const head = headers.map(cellText);
  const alignments = headers.map((_, index) => align?.[index] ?? (index === 0 ? 'left' : 'right'));
  const widths = headers.map((_, index) =>
    Math.max(3, ...[head, ...body].map((cells) => displayWidth(cells[index] ?? ''))),
  );
  const pad = (text: string, index: number) => {
    const fill = ' '.repeat((widths[index] ?? 0) - displayWidth(text));
    return alignments[index] === 'left' ? text + fill : fill + text;
  };
  const line = (cells: readonly string[]) => `| ${cells.map(pad).join(' | ')} |`;
  const separator = `| ${widths
    .map((width, index) => (alignments[index] === 'left' ? `:${'-'.repeat(width - 1)}` : `${'-'.repeat(width - 1)}:`))
    .join(' | ')} |`;
  return [line(head), separator, ...body.map(line)].join('\n');
};

/** Width in characters (code points; the report uses no wide or combining characters). */
const displayWidth = (text: string): number => [...text].length;

/** Milliseconds with one decimal (or "—" when unknown). */
export const ms = (value: number | undefined): string =>
  value === undefined || Number.isNaN(value) ? '—' : value.toFixed(1);

export const fixed = (value: number | undefined, digits = 2): string =>
  value === undefined || Number.isNaN(value) ? '—' : value.toFixed(digits);

export const dollars = (value: number | undefined): string =>
  value === undefined || Number.isNaN(value) ? '—' : `$${value.toFixed(value < 0.1 ? 4 : 3)}`;

export const percent = (value: number | undefined, digits = 0): string =>
  value === undefined || Number.isNaN(value) ? '—' : `${(value * 100).toFixed(digits)}%`;

export const kib = (bytes: number): string => `${(bytes / 1024).toFixed(1)} KiB`;

export const passFail = (pass: boolean | undefined): string => (pass === undefined ? '' : pass ? 'pass' : '**FAIL**');

export const bullets = (lines: readonly string[]): string => lines.map((line) => `- ${line}`).join('\n');
