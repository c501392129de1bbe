/** The shared stylesheet of the browser pages (inlined by the shell: no outside file, CDN or font). */
export const PAGE_CSS = `body{font:16px/1.5 system-ui,-apple-system,"Segoe UI","PingFang SC","Noto Sans CJK SC","Microsoft YaHei",sans-serif;max-width:60rem;margin:0 auto;padding:1rem;color:#1f2328;background:#fff}
h1{font-size:1.5rem;margin:.5rem 0}h2{font-size:1.15rem;margin:1.25rem 0 .5rem}table{border-collapse:collapse;width:100%}th,td{border-bottom:1px solid #d0d7de;padding:.4rem .5rem;text-align:left;vertical-align:top;overflow-wrap:anywhere}
thead th{color:#57606a;font-weight:600;white-space:nowrap}td.n{color:#57606a;width:2.5rem;white-space:nowrap}.tl{font-size:.8em;color:#57606a;border:1px solid #d0d7de;border-radius:4px;padding:0 .3rem;margin-left:.4rem;white-space:nowrap}td.h{white-space:nowrap;color:#8a5a00}a{color:#0969da;text-decoration:none}a:hover{text-decoration:underline}
.s{color:#57606a;font-size:.9em}footer{color:#57606a;font-size:.85em;margin-top:1rem}img{max-width:100%}
.site{display:flex;flex-wrap:wrap;gap:.25rem 1rem;align-items:center;font-size:.9em;border-bottom:1px solid #d0d7de;padding-bottom:.4rem}.site nav{display:flex;flex-wrap:wrap;gap:.25rem 1rem}.site .home{font-weight:700;color:#1f2328}
.site .notice{flex-basis:100%;background:#fff8c5;color:#3b2e00;border:1px solid #d4a72c;border-radius:6px;padding:.3rem .6rem;margin:.25rem 0}
.tm{display:flex;flex-wrap:wrap;gap:.5rem 1rem;align-items:center;background:#f6f8fa;border:1px solid #d0d7de;border-radius:8px;padding:.5rem .75rem;margin:.5rem 0 1rem}
.tm form{display:flex;flex-wrap:wrap;gap:.4rem;align-items:center}.tm input,.tm button,.search input,.search button{font:inherit;padding:.2rem .4rem;max-width:100%}
.tm .at{font-weight:600}.tm nav{display:flex;gap:1rem}
.up{color:#1a7f37;white-space:nowrap}.down{color:#cf222e;white-space:nowrap}.new{color:#fff;background:#1a7f37;border-radius:4px;padding:0 .3rem;font-size:.8em;white-space:nowrap}
.left{margin-top:.75rem}.left li{color:#57606a}
.chart{margin:.5rem 0 1rem}.chart svg{display:block;width:100%;max-width:36rem;height:auto}
.chart .grid{stroke:#d0d7de;stroke-width:1}.chart .axis{stroke:#57606a;stroke-width:1}.chart text{font-size:13px;fill:#1f2328}.chart .tick{fill:#424a53}.chart .bar{fill:#0969da}
.legend{list-style:none;padding:0;margin:.25rem 0;display:flex;flex-wrap:wrap;gap:.25rem 1rem;font-size:.9em}.legend i{display:inline-block;width:.8em;height:.8em;border-radius:50%;margin-right:.3em;vertical-align:-.05em}
.search{display:flex;gap:.4rem;margin:.75rem 0;align-items:center}.search input{flex:1;min-width:0}
.board{display:grid;grid-template-columns:repeat(auto-fill,minmax(18rem,1fr));gap:.75rem}
.card{border:1px solid #d0d7de;border-radius:8px;padding:.5rem .75rem;min-width:0}.card h3{font-size:1rem;margin:0 0 .25rem;display:flex;justify-content:space-between;gap:.5rem}
.card ol{margin:0;padding:0;list-style:none}.card li{display:flex;gap:.4rem;padding:.1rem 0;font-size:.92em}.card li .r{color:#57606a;min-width:1.4em;text-align:right}.card li .t{flex:1;min-width:0;overflow:hidden;text-overflow:ellipsis;white-space:nowrap}.card li .h{color:#8a5a00;white-space:nowrap}
.card .more{font-size:.85em;display:flex;justify-content:space-between;gap:.5rem;margin-top:.25rem;color:#57606a}
tr.has-spread td{border-bottom:0}.spread-row td{padding-top:0}.chart.spread{margin:0 0 .25rem}.chart.spread svg{max-width:27rem}
.events li{margin:.2rem 0}.events .p{color:#57606a;font-size:.88em}
@media (prefers-color-scheme:dark){body{background:#0d1117;color:#e6edf3}th,td,.site,.card{border-color:#30363d}a{color:#4493f8}.site .home{color:#e6edf3}.s,td.n,thead th,.tl,footer,.card li .r,.card .more,.left li,.events .p{color:#9da7b3}.tl{border-color:#30363d}td.h,.card li .h{color:#e3b341}
.tm{background:#161b22;border-color:#30363d}.site .notice{background:#3b2e00;color:#fff8c5}.chart text{fill:#e6edf3}.chart .tick{fill:#c9d1d9}.chart .grid{stroke:#30363d}.chart .axis{stroke:#9da7b3}.chart .bar{fill:#4493f8}.up{color:#3fb950}.down{color:#ff7b72}}`;


/** The pages with rules of their own, each scoped to its `<main class="…">`. */
export type PageKind = 'status' | 'console' | 'docs';

/** Every source at a glance (/status): state colours, cards, run bars. */
const STATUS_CSS = `.status{--fg:#1f2328;--card:#fff;--muted:#57606a;--line:#d0d7de;--ok:#12b76a;--warn:#f79009;--bad:#d92d20;--idle:#98a2b3;--info:#2e90fa}
@media (prefers-color-scheme:dark){.status{--fg:#e6edf3;--card:#161b22;--muted:#9da7b3;--line:#30363d;--bad:#ff7b72}}
.status *{box-sizing:border-box}.status h1{margin:.5rem 0 .25rem}.status a{color:#0969da}
.status .muted{color:var(--muted)}
.status .summary{display:flex;flex-wrap:wrap;gap:8px;margin:12px 0}
.status .chip{border-radius:999px;padding:4px 12px;background:var(--card);border:1px solid var(--line);font-weight:600}
.status .chip b{font-size:1.1em}
.status .chip i{display:inline-block;width:10px;height:10px;border-radius:50%;margin-right:6px;background:var(--idle)}
.status .chip-fresh i{background:var(--ok)}.status .chip-stale i{background:var(--warn)}.status .chip-failing i,.status .chip-down i{background:var(--bad)}.status .chip-local i{background:var(--info)}
.status .panel{background:var(--card);border:1px solid var(--line);border-radius:12px;padding:12px 16px;margin:12px 0;display:flex;flex-wrap:wrap;gap:8px 32px;align-items:baseline}
.status .panel h2{font-size:1rem;margin:0;flex-basis:100%}
.status .stat b{font-size:1.5rem;display:block}
.status .grid{display:grid;grid-template-columns:repeat(auto-fill,minmax(17rem,1fr));gap:12px}
.status .card{background:var(--card);border:1px solid var(--line);border-left:6px solid var(--idle);border-radius:12px;padding:12px 14px;min-width:0}
.status .card header{display:flex;justify-content:space-between;align-items:center;gap:8px}
.status .card h2{font-size:1.05rem;margin:0;overflow-wrap:anywhere}
.status .badge{border-radius:6px;padding:2px 8px;font-size:.8rem;font-weight:700;color:#fff;background:#667085;white-space:nowrap}
.status .state-fresh{border-left-color:var(--ok)}.status .state-fresh .badge{background:#067647}
.status .state-stale{border-left-color:var(--warn)}.status .state-stale .badge{background:#b54708}
.status .state-failing,.status .state-down{border-left-color:var(--bad)}.status .state-failing .badge,.status .state-down .badge{background:#b42318}
.status .state-local{border-left-color:var(--info)}.status .state-local .badge{background:#175cd3}
.status .id{margin:2px 0 8px;font-size:.85rem}
.status dl{display:grid;grid-template-columns:auto 1fr;gap:2px 12px;margin:0 0 8px}
.status dt{color:var(--muted)}.status dd{margin:0}
.status .error{color:var(--bad);font-size:.85rem;margin:4px 0 8px;overflow-wrap:anywhere}
.status .spark{display:block;max-width:100%;height:36px}
.status .run-ok{fill:var(--ok)}.status .run-unchanged{fill:var(--idle)}.status .run-failed{fill:var(--bad)}
.status .runs{font-size:.8rem;margin:4px 0 0}
.status .locals{gap:6px 8px}
.status .local{display:inline-block;padding:3px 10px;border-radius:999px;border:1px solid var(--line);border-left:4px solid var(--info);text-decoration:none;color:var(--fg);font-size:.9rem}
.status #upstreams table{border-collapse:collapse;width:100%;font-size:.9rem;display:block;overflow-x:auto}
.status #upstreams th,.status #upstreams td{text-align:left;padding:4px 10px 4px 0;border-bottom:1px solid var(--line)}
.status .upstream-up .badge{background:#067647}.status .upstream-cooling .badge{background:#b42318}.status .upstream-half-open .badge{background:#b54708}
@media (prefers-color-scheme:dark){.status a{color:#4493f8}}
@media (max-width:480px){.status .stat b{font-size:1.25rem}}`;

/** The key console's forms and tables. */
const CONSOLE_CSS = `.console{--box:#fff;--line:#d0d7de;--muted:#57606a;--head:#f6f8fa}
@media (prefers-color-scheme:dark){.console{--box:#161b22;--line:#30363d;--muted:#9da7b3;--head:#21262d}}
.console *{box-sizing:border-box}
.console .box{background:var(--box);border:1px solid var(--line);border-radius:12px;padding:14px 16px;margin:12px 0}
.console label{display:block;font-weight:600;margin:8px 0 2px}
.console input,.console select{width:100%;padding:8px;border:1px solid var(--line);border-radius:8px;font:inherit;background:var(--box);color:inherit}
.console .hint{color:var(--muted);font-size:.85rem;font-weight:400}
.console .grid{display:grid;grid-template-columns:repeat(auto-fit,minmax(14rem,1fr));gap:0 16px}
.console button{margin-top:12px;padding:8px 16px;border:0;border-radius:8px;background:#0969da;color:#fff;font:inherit;font-weight:600;cursor:pointer}
.console button.danger{background:#cf222e;margin:0;padding:4px 10px}
.console button.plain{background:#57606a}
.console .problems{background:#fef3f2;border:1px solid #fda29b;color:#b42318;border-radius:8px;padding:8px 12px}
.console .notice{background:#ecfdf3;color:#054f31;border:1px solid #75e0a7;border-radius:8px;padding:8px 12px}
.console .scroll{overflow-x:auto}
.console table{font-size:.9rem}.console td{overflow-wrap:normal}
.console th{background:var(--head)}
.console code{font-family:ui-monospace,Menlo,Consolas,monospace}
.console .newkey{display:block;font-size:1.05rem;padding:12px;background:#1f2328;color:#fff;border-radius:8px;overflow-wrap:anywhere;user-select:all}
.console .revoked td{color:#8c959f}
.console .top{display:flex;justify-content:space-between;align-items:center;gap:8px}`;

/** The API documentation (Swagger UI brings its own stylesheet for the explorer itself). */
const DOCS_CSS = `.docs .links{margin:.25rem 0 .5rem}.docs .swagger-ui .wrapper{padding:0}.docs .swagger-ui table{width:100%}.docs .swagger-ui th,.docs .swagger-ui td{border-bottom:0}.docs .swagger-ui .markdown code,.docs .swagger-ui .renderedMarkdown code{white-space:pre-wrap;overflow-wrap:anywhere}
@media (max-width:40rem){.docs .swagger-ui .opblock-tag{flex-wrap:wrap}.docs .swagger-ui .opblock-tag small{flex:1 1 12rem;padding:0}}
@media (prefers-color-scheme:dark){.docs #swagger-ui{background:#fff;color:#1f2328;border-radius:8px;padding:.25rem .5rem}}`;

export const PAGE_KIND_CSS: Readonly<Record<PageKind, string>> = { status: STATUS_CSS, console: CONSOLE_CSS, docs: DOCS_CSS };
