/**
 * The script merchants put on their pages (`<script src=".../t/v1/tracker.js" data-key="pk_...">`).
 * It records a visit when the page URL has `?via=<token>`, keeps the referral id in a
 * first-party cookie on the merchant's domain, and exposes `affiliateTracker.lead(email, name)`.
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
  function post(path, body) {
    return fetch(base + path, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) })
      .then(function (r) { return r.json(); });
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
