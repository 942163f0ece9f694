// The page shell: one self-contained HTML file. Styles and the small script are inline;
// the Content-Security-Policy forbids every network request, so a report opened from a
// mail attachment cannot fetch anything and nothing in it (kernel log text) can run.
import { el, text } from './markup.js';

/** The report stylesheet (also served by the web view, src/web/assets.ts). */
export const REPORT_CSS = `
:root{--fg:#1d2330;--muted:#5d6678;--bg:#fff;--panel:#f5f7fa;--line:#d8dde6;--s0:#2f6fdb;--s1:#e0701b;--s2:#3a9a5b;
--k0:#b9d3f5;--k1:#f6c9a3;--k2:#bfe3c4;--k3:#e4c6ef;--k4:#f3e3a2;--k5:#c9e8ea;--kidle:#eceff3;--hit:#ffe08a;--bad:#c62828}
@media (prefers-color-scheme:dark){:root{--fg:#e6e9ef;--muted:#9aa3b5;--bg:#14171c;--panel:#1d2129;--line:#333a46;
--k0:#25405f;--k1:#5b3a22;--k2:#244a2c;--k3:#46304f;--k4:#4d4320;--k5:#21474a;--kidle:#23272f;--hit:#6b5300}}
*{box-sizing:border-box}
body{margin:0;padding:24px 32px 48px;font:14px/1.45 system-ui,-apple-system,"Segoe UI",sans-serif;color:var(--fg);background:var(--bg);max-width:1000px}
h1{font-size:22px;margin:0 0 4px}h2{font-size:17px;margin:28px 0 10px;border-bottom:1px solid var(--line);padding-bottom:4px}
h3{font-size:15px;margin:18px 0 6px}
.sub{color:var(--muted);margin:0 0 16px}
code,.mono,pre{font-family:ui-monospace,"DejaVu Sans Mono",Menlo,monospace;font-size:12.5px}
.conclusion{background:var(--panel);border-left:4px solid var(--s0);padding:10px 14px;margin:12px 0}
.conclusion p{margin:4px 0}.limit{border-left-color:var(--muted)}.warn{border-left-color:var(--bad)}
table{border-collapse:collapse;margin:8px 0}th,td{text-align:left;padding:3px 12px 3px 0;vertical-align:top}
th{color:var(--muted);font-weight:500;white-space:nowrap}tbody tr{border-top:1px solid var(--line)}
td.num,th.num{text-align:right;font-variant-numeric:tabular-nums}
figure.chart{margin:16px 0 24px;background:var(--panel);border-radius:6px;padding:10px 12px;overflow-x:auto}
figcaption{font-weight:600;margin-bottom:6px}svg{display:block;max-width:100%;height:auto}
svg text{fill:var(--fg);font-size:11px}svg .tick,svg .axis-title{fill:var(--muted)}
svg .grid{stroke:var(--line);stroke-width:1}svg .axis{stroke:var(--muted)}
.s0{fill:var(--s0);stroke:var(--s0)}.s1{fill:var(--s1);stroke:var(--s1)}.s2{fill:var(--s2);stroke:var(--s2)}
svg .bar,svg .hbar,svg .dot,svg .kev{stroke:none}svg .hbar.outline{fill:none;stroke-width:2}
svg .step{fill:none;stroke-width:2}svg .dot{stroke:var(--bg);stroke-width:1}
svg .band{opacity:.45}svg .strip{stroke:var(--panel);stroke-width:2}svg .strip-label{font-size:10.5px}
svg .marker{stroke:var(--bad);stroke-dasharray:4 3}svg .marker-label{fill:var(--bad)}
.k0{fill:var(--k0)}.k1{fill:var(--k1)}.k2{fill:var(--k2)}.k3{fill:var(--k3)}.k4{fill:var(--k4)}.k5{fill:var(--k5)}.k-idle{fill:var(--kidle)}
.legend{display:flex;gap:16px;margin:0 0 6px;color:var(--muted)}.legend i{display:inline-block;width:12px;height:12px;border-radius:2px;margin-right:5px;vertical-align:-1px}
.legend .s0 i{background:var(--s0)}.legend .s1 i{background:var(--s1)}.legend .s2 i{background:var(--s2)}.legend span{fill:none;stroke:none}
.empty{color:var(--muted);font-style:italic;margin:4px 0}
details.event{border-top:1px solid var(--line);padding:4px 0}details summary{cursor:pointer}
details.event ol{margin:6px 0 8px;padding-left:40px}details.event li{font-family:ui-monospace,"DejaVu Sans Mono",Menlo,monospace;font-size:12.5px}
mark{background:var(--hit);color:inherit;padding:0 2px;border-radius:2px}
.cls{display:inline-block;min-width:52px;color:var(--muted)}
.toolbar{margin:6px 0 10px;display:flex;gap:8px;align-items:center}.toolbar button{font:inherit;padding:2px 10px}
.hidden{display:none}.runs{display:grid;grid-template-columns:1fr 1fr;gap:24px}
footer{margin-top:40px;color:var(--muted);font-size:12px}
`;

// Expand/collapse all stacks, and filter the event list by clicking an offender bar.
const SCRIPT = `
(function(){
  var list=document.querySelectorAll('details.event');
  function all(open){for(var i=0;i<list.length;i++)list[i].open=open;}
  var ex=document.getElementById('expand-all'),co=document.getElementById('collapse-all'),cl=document.getElementById('clear-filter');
  if(ex)ex.addEventListener('click',function(){all(true);});
  if(co)co.addEventListener('click',function(){all(false);});
  function filter(sig){
    var shown=0;
    for(var i=0;i<list.length;i++){var hit=!sig||list[i].getAttribute('data-signature')===sig;list[i].classList.toggle('hidden',!hit);if(hit)shown++;}
    var st=document.getElementById('filter-state');
    if(st)st.textContent=sig?('showing '+shown+' events with signature '+sig):'';
    if(cl)cl.classList.toggle('hidden',!sig);
  }
  if(cl)cl.addEventListener('click',function(){filter(null);});
  var bars=document.querySelectorAll('[data-chart="offenders"] [data-point]');
  for(var j=0;j<bars.length;j++){bars[j].style.cursor='pointer';bars[j].addEventListener('click',function(ev){
    var sig=ev.currentTarget.getAttribute('data-key');if(sig)filter(sig);});}
})();
`;

/** Wraps report sections into a complete, offline HTML document. */
export function renderPage(title: string, body: string[], footer: string): string {
  return (
    '<!doctype html>\n' +
    el(
      'html',
      { lang: 'en' },
      el(
        'head',
        {},
        el('meta', { charset: 'utf-8' }),
        el('meta', {
          'http-equiv': 'Content-Security-Policy',
          content:
            "default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:",
        }),
        el('meta', { name: 'viewport', content: 'width=device-width, initial-scale=1' }),
        el('meta', { name: 'generator', content: 'xrunhunt' }),
        el('title', {}, text(title)),
        el('style', {}, REPORT_CSS),
      ),
      el('body', {}, ...body, el('footer', {}, text(footer)), el('script', {}, SCRIPT)),
    ) +
    '\n'
  );
}
