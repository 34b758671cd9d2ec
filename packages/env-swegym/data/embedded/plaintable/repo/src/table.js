const NUMBER = /^-?\d+(\.\d+)?$/;

/** The width of each column: the length of its longest cell, or of its header if that is longer. */
function columnWidths(header, rows) {
  return header.map((name, index) => {
    let width = String(name).length;
    for (const row of rows) {
      width = Math.max(width, String(row[index]).length);
    }
    return width;
  });
}

/** Whether every cell of a column is a number (such columns are right-aligned). */
function isNumericColumn(rows, index) {
  return rows.length > 0 && rows.every((row) => NUMBER.test(String(row[index])));
}

function pad(text, width, right) {
  return right ? text.padStart(width) : text.padEnd(width);
}

/** The rows under the header as lines of text: aligned columns, two spaces apart. */
function renderTable(header, rows) {
  const widths = columnWidths(header, rows);
  const right = header.map((_, index) => isNumericColumn(rows, index));
  const line = (cells) =>
    cells
      .map((cell, index) => pad(cell, widths[index], right[index]))
      .join('  ')
      .trimEnd();
  return [
    line(header.map(String)),
    line(widths.map((width) => '-'.repeat(width))),
    ...rows.map((row) => line(header.map((_, index) => String(row[index])))),
  ].join('\n');
}

module.exports = { columnWidths, renderTable };
