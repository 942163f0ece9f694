// The web view's only assets, served from the package at /assets/ (no CDN, nothing
// fetched from elsewhere): the report's stylesheet plus the web view's additions, and one
// small script that submits the filter form when a control changes. The pages work without
// the script (the Apply button submits the same form).
import { createHash } from 'node:crypto';
import { REPORT_CSS } from '../report-html/page.js';

const WEB_CSS = `
body{max-width:1200px}
nav.top{display:flex;gap:18px;align-items:baseline;margin:0 0 14px}nav.top a{color:var(--s0);text-decoration:none}
nav.top a.here{font-weight:600;color:var(--fg)}nav.top .brand{font-weight:700;margin-right:12px}
form.filters{display:flex;flex-wrap:wrap;gap:8px 14px;align-items:end;background:var(--panel);padding:10px 12px;border-radius:6px;margin:0 0 14px}
form.filters label{display:flex;flex-direction:column;font-size:12px;color:var(--muted);gap:2px}
form.filters select,form.filters input{font:inherit;font-size:13px;max-width:220px}
form.filters button{font:inherit;padding:3px 14px}
dl.totals{display:flex;flex-wrap:wrap;gap:4px 26px;margin:6px 0 14px}dl.totals div{display:flex;flex-direction:column}
dl.totals dt{color:var(--muted);font-size:12px}dl.totals dd{margin:0;font-size:18px;font-variant-numeric:tabular-nums}
td.sig{font-family:ui-monospace,"DejaVu Sans Mono",Menlo,monospace;font-size:12.5px;word-break:break-all}
a{color:var(--s0)}.error{border-left:4px solid var(--bad);background:var(--panel);padding:10px 14px}
ol.frames{font-family:ui-monospace,"DejaVu Sans Mono",Menlo,monospace;font-size:12.5px;margin:4px 0 12px}
.facets{display:flex;flex-wrap:wrap;gap:8px 36px}
svg .flame text{font-size:10.5px;pointer-events:none}svg .flame rect{stroke:var(--bg);stroke-width:.5}
svg .trend{fill:none;stroke-width:2}
.t0{stroke:#1d2330;fill:#1d2330}.t1{stroke:#2f6fdb;fill:#2f6fdb}.t2{stroke:#e0701b;fill:#e0701b}.t3{stroke:#3a9a5b;fill:#3a9a5b}
.t4{stroke:#a03ab8;fill:#a03ab8}.t5{stroke:#b89a1a;fill:#b89a1a}.t6{stroke:#1a9aa8;fill:#1a9aa8}.t7{stroke:#c62828;fill:#c62828}
.legend .t0 i{background:#1d2330}.legend .t1 i{background:#2f6fdb}.legend .t2 i{background:#e0701b}.legend .t3 i{background:#3a9a5b}
.legend .t4 i{background:#a03ab8}.legend .t5 i{background:#b89a1a}.legend .t6 i{background:#1a9aa8}.legend .t7 i{background:#c62828}
.trend-legend{flex-wrap:wrap}
@media (prefers-color-scheme:dark){.t0{stroke:#e6e9ef;fill:#e6e9ef}.legend .t0 i{background:#e6e9ef}}
`;

const WEB_JS = `(function(){
  var f=document.getElementById('filters');
  if(!f)return;
  function trim(){var e=f.elements;for(var i=0;i<e.length;i++){if(e[i].name&&!e[i].value)e[i].disabled=true;}}
  f.addEventListener('submit',trim);
  var c=f.querySelectorAll('select,input');
  for(var i=0;i<c.length;i++)c[i].addEventListener('change',function(){trim();f.submit();});
})();
`;

// A small waveform with a gap: the tab icon (browsers ask for one; without it, a 404).
const ICON_SVG = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 16 16"><path d="M1 8h2l1-5 2 10 1-5h2M11 8h4" fill="none" stroke="#2f6fdb" stroke-width="1.6"/></svg>`;

export interface Asset {
  body: string;
  type: string;
  etag: string;
}

const asset = (body: string, type: string): Asset => ({
  body,
  type,
  etag: `"${createHash('sha256').update(body).digest('base64url').slice(0, 22)}"`,
});

/** The assets by URL path. */
export const ASSETS: ReadonlyMap<string, Asset> = new Map([
  ['/assets/web.css', asset(REPORT_CSS + WEB_CSS, 'text/css; charset=utf-8')],
  ['/assets/web.js', asset(WEB_JS, 'text/javascript; charset=utf-8')],
  ['/assets/icon.svg', asset(ICON_SVG, 'image/svg+xml')],
]);
