/** The shared stylesheet of the browser pages (inlined by the shell: no outside file, CDN or font). */
export const PAGE_CSS = `body{font:16px/1.5 system-ui,-apple-system,"Segoe UI","PingFang SC","Microsoft YaHei",sans-serif;max-width:60rem;margin:0 auto;padding:1rem;color:#1f2328;background:#fff}
h1{font-size:1.5rem}table{border-collapse:collapse;width:100%}th,td{border-bottom:1px solid #d0d7de;padding:.4rem .5rem;text-align:left;vertical-align:top;overflow-wrap:anywhere}
thead th{color:#57606a;font-weight:600;white-space:nowrap}td.n{color:#57606a;width:2.5rem}td.h{white-space:nowrap;color:#9a6700}a{color:#0969da;text-decoration:none}a:hover{text-decoration:underline}
.s{color:#57606a;font-size:.9em}footer{color:#57606a;font-size:.85em;margin-top:1rem}img{max-width:100%}
@media (prefers-color-scheme:dark){body{background:#0d1117;color:#e6edf3}th,td{border-color:#30363d}a{color:#4493f8}.s,td.n,footer{color:#8d96a0}}`;
