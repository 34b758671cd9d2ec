/** A query string from an object of parameters, keys sorted. */
function stringify(params) {
  return Object.keys(params)
    .sort()
    .map((key) => `${key}=${params[key]}`)
    .join('&');
}

/** The parameters of a query string (a leading `?` is allowed). */
function parse(query) {
  const params = {};
  for (const pair of query.replace(/^\?/, '').split('&')) {
    if (pair === '') continue;
    const [key, value = ''] = pair.split('=');
    params[decodeURIComponent(key)] = decodeURIComponent(value.replace(/\+/g, ' '));
  }
  return params;
}

/** A URL with parameters added to its query, keys sorted. */
function appendParams(url, params) {
  const pairs = [];
  for (const key of Object.keys(params).sort()) {
    pairs.push(`${key}=${params[key]}`);
  }
  if (pairs.length === 0) return url;
  return url + (url.includes('?') ? '&' : '?') + pairs.join('&');
}

module.exports = { stringify, parse, appendParams };
