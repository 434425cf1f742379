/** The page frame every portal page shares: head, styles, header, and the copy-button script. */
import { SafeHtml, html } from './html';

export interface LayoutOptions {
  title: string;
  nonce: string;
  /** Shown in the header with a sign-out button when signed in. */
  signedIn?: { name: string; csrf: string };
  body: SafeHtml;
  /** Which site the page belongs to; the portal's by default (the console passes its own). */
  site?: { name: string; signOutAction: string; nav?: SafeHtml; referrer?: string };
}

const PORTAL_SITE = { name: 'Affiliate dashboard', signOutAction: '/portal/sign-out' };

// Colours meet WCAG AA contrast on white (text #1f2933, links #0b57d0, muted #4b5563).
const STYLES = `
*{box-sizing:border-box}
body{margin:0;font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:#1f2933;background:#f4f6f8}
a{color:#0b57d0}
a:focus-visible,button:focus-visible,input:focus-visible,.table:focus-visible{outline:3px solid #f59e0b;outline-offset:2px}
.skip{position:absolute;left:-999px}.skip:focus{left:8px;top:8px;background:#fff;padding:8px;z-index:2}
header{background:#1f2933;color:#fff;padding:12px 16px;display:flex;flex-wrap:wrap;gap:8px;align-items:center;justify-content:space-between}
header h1{font-size:1.2rem;margin:0}
header form{margin:0;overflow-wrap:anywhere;min-width:0}
main{max-width:1040px;margin:0 auto;padding:16px}
section{background:#fff;border:1px solid #d5dbe1;border-radius:8px;padding:16px;margin:0 0 16px}
h2{font-size:1.15rem;margin:0 0 12px}
.muted{color:#4b5563}
.stats{display:grid;grid-template-columns:repeat(auto-fit,minmax(140px,1fr));gap:12px;margin:0}
.stats div{border:1px solid #d5dbe1;border-radius:8px;padding:8px 12px}
.stats dt{color:#4b5563;font-size:.9rem}.stats dd{margin:0;font-size:1.5rem;font-weight:600}
.table{overflow-x:auto;position:relative}
table{border-collapse:collapse;width:100%;min-width:420px}
th,td{text-align:left;padding:6px 8px;border-bottom:1px solid #e5e9ee;vertical-align:top}
time{white-space:nowrap}
td.num,th.num{text-align:right;font-variant-numeric:tabular-nums}
.state{display:inline-block;padding:0 8px;border-radius:999px;background:#e8eef7;font-size:.85rem}
button,.button{font:inherit;padding:8px 14px;border-radius:6px;border:1px solid #0b57d0;background:#0b57d0;color:#fff;cursor:pointer;min-height:44px}
button.secondary{background:#fff;color:#0b57d0}
header button{background:#fff;color:#1f2933;border-color:#fff}
.copy{display:flex;gap:8px;align-items:center;min-width:260px}
.copy input{flex:1;min-width:0;font:inherit;padding:8px;border:1px solid #9aa5b1;border-radius:6px;min-height:44px}
form.settings label{display:block;font-weight:600;margin:12px 0 4px}
form.settings input[type=email]{width:100%;max-width:420px;font:inherit;padding:8px;border:1px solid #9aa5b1;border-radius:6px;min-height:44px}
form.settings .check{display:flex;gap:8px;align-items:center;font-weight:400}
form.settings .check input{width:22px;height:22px}
.notice{border-left:4px solid #15803d;background:#ecfdf3;padding:8px 12px;margin:0 0 16px}
.error{border-left:4px solid #b42318;background:#fef3f2;padding:8px 12px;margin:0 0 16px}
.chart>svg{width:100%;height:auto;max-width:720px}
.legend{display:flex;gap:16px;flex-wrap:wrap;font-size:.9rem}
.swatch{display:inline-block;width:12px;height:12px;margin-right:4px;vertical-align:middle}
.sr{position:absolute;width:1px;height:1px;overflow:hidden;clip:rect(0 0 0 0);white-space:nowrap}
nav.pager{display:flex;gap:12px;margin-top:12px}
nav.site{background:#fff;border-bottom:1px solid #d5dbe1;padding:8px 16px;display:flex;gap:4px 16px;flex-wrap:wrap}
nav.site a{padding:4px 0}nav.site a[aria-current=page]{font-weight:700;color:#1f2933}
th a{color:inherit}td.select,th.select{width:44px}td.select input{width:22px;height:22px}
.bulk{display:flex;gap:8px;flex-wrap:wrap;margin-top:12px}
ul.plain{margin:0;padding-left:18px}
form.edit .grid{display:grid;grid-template-columns:repeat(auto-fit,minmax(220px,1fr));gap:12px;margin:0 0 12px;min-width:0}form.edit fieldset{border:1px solid #d5dbe1;border-radius:8px;margin:0 0 12px;min-width:0}form.edit legend{font-weight:600}
form.edit label{display:flex;flex-direction:column;font-weight:600;min-width:0}form.edit input,form.edit select{font:inherit;padding:8px;border:1px solid #9aa5b1;border-radius:6px;min-height:44px;max-width:100%}form.edit .hint{font-weight:400;color:#4b5563;font-size:.9rem}
.actions{display:flex;gap:8px;flex-wrap:wrap;margin:12px 0}
.state.bad{background:#fee4e2;color:#7a271a}.state.good{background:#dcfae6;color:#074d31}
.url,code{overflow-wrap:anywhere}dl.facts{display:grid;grid-template-columns:max-content 1fr;gap:4px 12px;margin:0 0 12px}dl.facts dt{font-weight:600}dl.facts dd{margin:0;min-width:0}
ol.attempts{margin:4px 0 0;padding-left:20px}h3{font-size:1rem;margin:16px 0 8px}
form.inline{display:inline;margin:0}
form.signin{display:flex;flex-direction:column;gap:8px;max-width:420px}
.filters{display:flex;gap:8px;flex-wrap:wrap;align-items:end}.filters label{display:flex;flex-direction:column;font-weight:600}
.filters input,.filters select,form.signin input{font:inherit;padding:8px;border:1px solid #9aa5b1;border-radius:6px;min-height:44px}
@media (max-width:600px){main{padding:8px}section{padding:12px}.stats dd{font-size:1.25rem}}
`;

/**
 * The tab icon, inline: without one every browser asks for `/favicon.ico`, and its 404 is an
 * error in the console on every page. The CSP's `img-src data:` allows it.
 */
const FAVICON =
  'data:image/svg+xml,' +
  encodeURIComponent(
    '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 16 16"><rect width="16" height="16" rx="3" fill="#0b57d0"/><path d="M4 12 8 4l4 8" stroke="#fff" stroke-width="2" fill="none"/></svg>',
  );

// Static, trusted text (inserted unescaped). Progressive enhancement: without JavaScript the link stays selectable in its text field.
const COPY_SCRIPT = `
document.addEventListener('click', async (event) => {
  const button = event.target.closest('button[data-copy]');
  if (!button) return;
  const input = document.getElementById(button.dataset.copy);
  const status = document.getElementById(button.dataset.copy + '-status');
  try {
    await navigator.clipboard.writeText(input.value);
  } catch {
    input.select();
    document.execCommand('copy');
  }
  button.textContent = 'Copied';
  if (status) status.textContent = 'Link copied to the clipboard.';
  setTimeout(() => { button.textContent = 'Copy'; }, 2500);
});
`;

export function layout(opts: LayoutOptions): string {
  const site: NonNullable<LayoutOptions['site']> = opts.site ?? PORTAL_SITE;
  const page = html`<!doctype html>
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <meta name="referrer" content="${site.referrer ?? 'no-referrer'}" />
        <title>${opts.title} · ${site.name}</title>
        <link rel="icon" href="${FAVICON}" />
        <style nonce="${opts.nonce}">
          ${new SafeHtml(STYLES)}
        </style>
      </head>
      <body>
        <a class="skip" href="#main">Skip to content</a>
        <header>
          <h1>${site.name}</h1>
          ${
            opts.signedIn
              ? html`<form method="post" action="${site.signOutAction}">
                  <span>${opts.signedIn.name}</span>
                  <input type="hidden" name="_csrf" value="${opts.signedIn.csrf}" />
                  <button type="submit">Sign out</button>
                </form>`
              : ''
          }
        </header>
        ${opts.site?.nav ?? ''}
        <main id="main">${opts.body}</main>
        ${
          opts.signedIn
            ? html`<script nonce="${opts.nonce}">
                ${new SafeHtml(COPY_SCRIPT)};
              </script>`
            : ''
        }
      </body>
    </html>`;
  return page.value;
}
