/** The shared stylesheet of the browser pages (inlined by the shell: no outside file, CDN or font). */
export const PAGE_CSS = `body{font:16px/1.5 system-ui,-apple-system,"Segoe UI","PingFang SC","Noto Sans CJK SC","Microsoft YaHei",sans-serif;max-width:60rem;margin:0 auto;padding:1rem;color:#1f2328;background:#fff}
h1{font-size:1.5rem;margin:.5rem 0}h2{font-size:1.15rem;margin:1.25rem 0 .5rem}table{border-collapse:collapse;width:100%}th,td{border-bottom:1px solid #d0d7de;padding:.4rem .5rem;text-align:left;vertical-align:top;overflow-wrap:anywhere}
thead th{color:#57606a;font-weight:600;white-space:nowrap}td.n{color:#57606a;width:2.5rem;white-space:nowrap}.tl{font-size:.8em;color:#57606a;border:1px solid #d0d7de;border-radius:4px;padding:0 .3rem;margin-left:.4rem;white-space:nowrap}td.h{white-space:nowrap;color:#8a5a00}a{color:#0969da;text-decoration:none}a:hover{text-decoration:underline}
.s{color:#57606a;font-size:.9em}footer{color:#57606a;font-size:.85em;margin-top:1rem}img{max-width:100%}
.site{display:flex;flex-wrap:wrap;gap:.25rem 1rem;align-items:center;font-size:.9em;border-bottom:1px solid #d0d7de;padding-bottom:.4rem}.site nav{display:flex;flex-wrap:wrap;gap:.25rem 1rem}.site .home{font-weight:700;color:#1f2328}
.notice{flex-basis:100%;background:#fff8c5;color:#3b2e00;border:1px solid #d4a72c;border-radius:6px;padding:.3rem .6rem;margin:.25rem 0}
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
.events li{margin:.2rem 0}.events .p{color:#57606a;font-size:.88em}
@media (prefers-color-scheme:dark){body{background:#0d1117;color:#e6edf3}th,td,.site,.card{border-color:#30363d}a{color:#4493f8}.site .home{color:#e6edf3}.s,td.n,thead th,.tl,footer,.card li .r,.card .more,.left li,.events .p{color:#9da7b3}.tl{border-color:#30363d}td.h,.card li .h{color:#e3b341}
.tm{background:#161b22;border-color:#30363d}.notice{background:#3b2e00;color:#fff8c5}.chart text{fill:#e6edf3}.chart .tick{fill:#c9d1d9}.chart .grid{stroke:#30363d}.chart .axis{stroke:#9da7b3}.chart .bar{fill:#4493f8}.up{color:#3fb950}.down{color:#ff7b72}}`;
