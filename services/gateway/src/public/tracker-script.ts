/**
 * The script merchants put on their pages (`<script src=".../t/v1/tracker.js" data-key="pk_...">`).
 * It records a visit when the page URL has `?via=<token>`, keeps the referral id in a
 * first-party cookie on the merchant's domain, and exposes `affiliateTracker.lead(email, name)`.
 * A visit or lead refused for now (503 while the intake fails over, 429 over the limit) is sent
 * again a few times, after the answer's Retry-After (at most 10 s) or 1, 2 and 4 s.
 */
export function trackerScript(baseUrl: string): string {
  return `(function () {
  var script = document.currentScript;
  var key = script && script.getAttribute('data-key');
  var base = ${JSON.stringify(baseUrl)};
  var COOKIE = 'aff_referral';
  function readCookie() {
    var m = document.cookie.match(/(?:^|; )aff_referral=([^;]*)/);
    return m ? decodeURIComponent(m[1]) : null;
  }
  function writeCookie(id, expires) {
    document.cookie = COOKIE + '=' + encodeURIComponent(id) + '; expires=' + new Date(expires).toUTCString() + '; path=/; SameSite=Lax';
  }
  // 503 and 429 both mean "not stored, try again": the intake was failing over or the visitor
  // was over the limit. Anything else (an answer, a 4xx, a lost connection that may have been
  // stored) is final, so a retried visit can never make a second referral.
  var RETRIES = 3;
  var MAX_WAIT_MS = 10000;
  function post(path, body, attempt) {
    attempt = attempt || 0;
    return fetch(base + path, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) })
      .then(function (r) {
        if ((r.status === 503 || r.status === 429) && attempt < RETRIES) {
          return wait(retryDelay(r, attempt)).then(function () { return post(path, body, attempt + 1); });
        }
        return r.json();
      });
  }
  function retryDelay(r, attempt) {
    var seconds = Number(r.headers.get('retry-after'));
    var ms = seconds > 0 ? seconds * 1000 : 1000 * Math.pow(2, attempt);
    return Math.min(ms, MAX_WAIT_MS);
  }
  function wait(ms) {
    return new Promise(function (resolve) { setTimeout(resolve, ms); });
  }
  var token = new URLSearchParams(window.location.search).get('via');
  if (key && token) {
    post('/t/v1/visits', { key: key, token: token, url: window.location.href, referrer: document.referrer || null, referral: readCookie() })
      .then(function (answer) { if (answer && answer.referral) writeCookie(answer.referral.id, answer.referral.expires_at); })
      .catch(function () {});
  }
  window.affiliateTracker = {
    referral: readCookie,
    lead: function (email, name) {
      var referral = readCookie();
      if (!key || !referral) return Promise.resolve(null);
      return post('/t/v1/leads', { key: key, referral: referral, email: email, name: name || null });
    }
  };
})();
`;
}
