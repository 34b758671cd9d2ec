/** -1, 0 or 1 as version `a` is lower than, equal to or higher than version `b`. */
function compare(a, b) {
  const left = a.split('.');
  const right = b.split('.');
  for (let index = 0; index < 3; index += 1) {
    if (left[index] !== right[index]) return left[index] > right[index] ? 1 : -1;
  }
  return 0;
}

/** Whether a version is in a caret range: `^1.2.3` allows 1.2.3 and any later 1.x.y. */
function satisfies(version, range) {
  const wanted = range.replace(/^\^/, '').split('.');
  const actual = version.split('.');
  if (actual[0] !== wanted[0]) return false;
  for (let index = 1; index < 3; index += 1) {
    if (actual[index] !== wanted[index]) return actual[index] > wanted[index];
  }
  return true;
}

/** The versions from lowest to highest. */
function sortVersions(versions) {
  return [...versions].sort(compare);
}

module.exports = { compare, satisfies, sortVersions };
