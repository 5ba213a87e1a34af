/**
 * A loopback URL that refuses connections and that no test can take: port 2 of 127.0.0.1, below the
 * ephemeral range every test server listens in (port 1 is one `fetch` will not even try). A port a test
 * has just closed is no such URL: with files running side by side, another test's server can be given
 * that port at once and answer instead.
 */
export const REFUSED_URL = 'http://127.0.0.1:2';
