function checkPerPage(perPage) {
  if (!Number.isInteger(perPage) || perPage < 1) {
    throw new RangeError(`perPage must be a positive integer, got ${perPage}`);
  }
}

/** How many pages `total` items fill at `perPage` items a page. */
function pageCount(total, perPage) {
  checkPerPage(perPage);
  return Math.floor(total / perPage);
}

/** Whether another page follows page `page` (pages start at 1). */
function hasNextPage(page, total, perPage) {
  checkPerPage(perPage);
  return page < Math.floor(total / perPage);
}

/** The items on page `page` (pages start at 1). */
function pageItems(items, page, perPage) {
  checkPerPage(perPage);
  const start = (page - 1) * perPage;
  return items.slice(start, start + perPage);
}

module.exports = { pageCount, hasNextPage, pageItems };
