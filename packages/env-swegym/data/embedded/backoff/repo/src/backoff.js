const defaults = { base: 100 };

function settings(options) {
  const base = options.base ?? defaults.base;
  const max = options.max;
  if (max !== undefined && max < base) {
    throw new RangeError(`max (${max}) must not be below base (${base})`);
  }
  return { base, max };
}

/** The delay in milliseconds before retry number `attempt` (counting from 0). */
function delayFor(attempt, options = {}) {
  const { base, max } = settings(options);
  const delay = base * 2 ** attempt;
  return delay;
}

/** The delays of the first `attempts` retries. */
function schedule(attempts, options = {}) {
  const { base, max } = settings(options);
  const delays = [];
  for (let attempt = 0; attempt < attempts; attempt += 1) {
    delays.push(base * 2 ** attempt);
  }
  return delays;
}

module.exports = { delayFor, schedule };
