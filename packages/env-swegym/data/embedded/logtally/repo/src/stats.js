/** How many requests got each status code, e.g. `{ 200: 3, 404: 1 }`. */
function countByStatus(entries) {
  const counts = {};
  for (const { status } of entries) {
    counts[status] = (counts[status] ?? 0) + 1;
  }
  return counts;
}

/** How many requests got a status of each class, e.g. `{ '2xx': 3, '4xx': 1 }`. */
function countByClass(entries) {
  const counts = {};
  for (const { status } of entries) {
    const statusClass = `${Math.floor(status / 100)}xx`;
    counts[statusClass] = (counts[statusClass] ?? 0) + 1;
  }
  return counts;
}

/** The bytes sent in all responses. */
function totalBytes(entries) {
  return entries.reduce((sum, entry) => sum + entry.bytes, 0);
}

module.exports = { countByStatus, countByClass, totalBytes };
