/** The report's stylesheet, inlined so the file needs nothing else. */
export const reportCss = `
:root { --ink:#1f2328; --muted:#59636e; --faint:#8c959f; --line:#d1d9e0; --soft:#eef1f4; --card:#fff; --page:#f6f8fa;
  --blue:#1f6feb; --green:#1a7f37; --red:#cf222e; --mono:ui-monospace,SFMono-Regular,"SF Mono",Menlo,Consolas,"Liberation Mono",monospace; }
* { box-sizing:border-box; }
body { margin:0; background:var(--page); color:var(--ink); font:14px/1.5 system-ui,-apple-system,"Segoe UI","Noto Sans",Helvetica,Arial,sans-serif; }
header.top { background:linear-gradient(135deg,#0d1117 0%,#132a4d 100%); color:#f0f6fc; padding:28px 0 22px; }
.wrap { max-width:1240px; margin:0 auto; padding:0 28px; }
header.top h1 { margin:0; font-size:26px; font-weight:650; letter-spacing:-0.01em; }
header.top .subtitle { margin:4px 0 16px; color:#9fb0c3; font-size:14px; }
.chips { display:flex; flex-wrap:wrap; gap:8px; margin:0; padding:0; list-style:none; }
.chips li { background:rgba(255,255,255,0.08); border:1px solid rgba(255,255,255,0.14); border-radius:999px; padding:3px 12px; font-size:12.5px; color:#dbe4ee; }
.chips b { color:#fff; font-weight:600; margin-right:4px; }
nav.sections { background:#fff; border-bottom:1px solid var(--line); }
nav.sections .wrap { display:flex; gap:22px; padding-top:10px; padding-bottom:10px; font-size:13px; }
nav.sections a { color:var(--muted); text-decoration:none; font-weight:500; }
nav.sections a:hover { color:var(--blue); }
main section { margin:30px 0 8px; }
main h2 { font-size:19px; margin:0 0 4px; font-weight:650; letter-spacing:-0.01em; }
.section-note, .table-note { color:var(--muted); margin:0 0 14px; font-size:13px; }
.headlines { display:grid; grid-template-columns:repeat(auto-fill,minmax(250px,1fr)); gap:14px; margin:22px 0 0; }
.headline { background:var(--card); border:1px solid var(--line); border-radius:10px; padding:14px 16px; }
.headline .label { color:var(--muted); font-size:12.5px; }
.headline .value { font-size:24px; font-weight:650; font-variant-numeric:tabular-nums; }
.headline .value .up { color:var(--green); } .headline .value .down { color:var(--red); }
.headline .sub { color:var(--faint); font-size:12px; }
.table-card, .chart-card, .group { background:var(--card); border:1px solid var(--line); border-radius:10px; box-shadow:0 1px 2px rgba(31,35,40,0.04); }
.table-card { padding:16px 18px 10px; margin:0 0 16px; overflow-x:auto; }
.table-card h3 { margin:0 0 2px; font-size:15px; }
table { border-collapse:collapse; width:100%; font-variant-numeric:tabular-nums; }
th, td { padding:7px 10px; text-align:left; border-bottom:1px solid var(--soft); white-space:nowrap; }
thead th { white-space:normal; vertical-align:bottom; font-size:12px; color:var(--muted); font-weight:600; text-transform:uppercase; letter-spacing:0.03em; border-bottom:1px solid var(--line); }
th.num, td.num { text-align:right; }
tbody tr.env-start > * { border-top:1px solid var(--line); }
th.env { font-weight:600; vertical-align:top; }
td.method { font-weight:500; }
td.method.before { color:var(--muted); font-style:italic; font-weight:400; }
td.missing { color:var(--faint); }
td.best { background:#ddf4ff; font-weight:650; }
td.clear-up { background:#ddf4ff; }
td.clear-down { background:#fff1d6; }
.pm { color:var(--faint); font-size:12px; margin-left:5px; font-weight:400; }
.dot { display:inline-block; width:9px; height:9px; border-radius:50%; background:var(--dot); margin-right:7px; vertical-align:1px; }
.env-heading { font-size:16px; margin:18px 0 10px; }
.chart-grid { display:grid; grid-template-columns:repeat(auto-fill,minmax(520px,1fr)); gap:16px; }
.chart-card { margin:0; padding:14px 16px 8px; }
.chart-card figcaption { display:flex; flex-direction:column; margin-bottom:4px; }
.chart-title { font-weight:600; font-size:14.5px; }
.chart-note { color:var(--muted); font-size:12.5px; }
.chart-card.empty { display:flex; flex-direction:column; }
.empty-note { color:var(--faint); font-style:italic; margin:8px 0; }
.legend { display:flex; flex-wrap:wrap; gap:4px 16px; list-style:none; margin:6px 0 2px; padding:0; font-size:12.5px; color:var(--muted); }
.swatch { display:inline-block; width:18px; height:0; border-top:3px solid var(--swatch); margin-right:6px; vertical-align:3px; }
.swatch.dashed { border-top-style:dashed; }
svg.chart { width:100%; height:auto; display:block; font-family:inherit; }
svg .grid { stroke:#eaeef2; } svg .axis { stroke:#8c959f; } svg .axis-tick { stroke:#8c959f; }
svg .tick { font-size:11px; fill:var(--muted); font-variant-numeric:tabular-nums; }
svg .axis-label { font-size:11.5px; fill:var(--muted); }
svg .line { fill:none; stroke-width:2.25; stroke-linejoin:round; stroke-linecap:round; }
svg .line.dashed { stroke-dasharray:6 4; }
svg .band { opacity:0.12; stroke:none; }
svg .dot { stroke:#fff; stroke-width:1.2; }
svg .bar.helps { fill:#2da44e; } svg .bar.hurts { fill:#e5534b; }
svg .row-label { font-size:12px; fill:var(--ink); font-weight:500; } svg .row-detail { font-size:10.5px; fill:var(--faint); }
svg .value { font-size:11px; fill:var(--muted); font-variant-numeric:tabular-nums; }
.group { margin:0 0 12px; }
.group > summary { cursor:pointer; list-style:none; display:flex; flex-wrap:wrap; align-items:baseline; gap:6px 14px; padding:12px 16px; }
.group > summary::-webkit-details-marker { display:none; }
.group > summary::before { content:"▸"; color:var(--faint); width:10px; }
.group[open] > summary::before { content:"▾"; }
.group[open] > summary { border-bottom:1px solid var(--soft); }
.group-task { font-family:var(--mono); font-weight:600; }
.group-outcome { font-weight:600; color:var(--green); }
.group-meta { color:var(--muted); font-size:12.5px; }
.group-text { flex-basis:100%; color:var(--muted); font-size:13px; padding-left:24px; overflow:hidden; text-overflow:ellipsis; white-space:nowrap; }
.group-body { padding:12px 16px 16px; }
.toolbar { display:flex; gap:8px; align-items:center; margin-bottom:12px; }
.toolbar button { font:inherit; font-size:12.5px; border:1px solid var(--line); background:var(--page); border-radius:6px; padding:3px 10px; cursor:pointer; }
.toolbar button:hover { background:var(--soft); }
.toolbar .hint { color:var(--faint); font-size:12px; }
.columns { display:flex; gap:18px; overflow-x:auto; align-items:flex-start; padding-bottom:6px; }
.lane { flex:0 0 auto; border-top:3px solid var(--red); padding-top:6px; }
.lane.rescue { border-top-color:var(--green); }
.lane h4 { margin:0 0 8px; font-size:12.5px; color:var(--muted); font-weight:600; text-transform:uppercase; letter-spacing:0.03em; }
.lane-columns { display:flex; gap:8px; align-items:flex-start; }
/* Narrow screens: the rescue lane under H0's, each scrolling on its own, so it is never off-screen. */
@media (max-width:1100px) { .columns { flex-direction:column; } .lane { max-width:100%; overflow-x:auto; } }
.attempt { border:1px solid var(--line); border-radius:8px; background:#fcfdfd; width:380px; }
.attempt.success { border-color:#9bd5a9; }
.attempt:not([open]) { width:34px; background:#fff5f4; border-color:#f4c7c3; }
.attempt.success:not([open]) { background:#effbf1; border-color:#9bd5a9; }
.attempt:not([open]) > summary { writing-mode:vertical-rl; flex-wrap:nowrap; padding:10px 6px; min-height:150px; gap:6px; }
.attempt:not([open]) .badge, .attempt:not([open]) .meta { display:none; }
.attempt .mark { display:none; font-weight:700; }
.attempt:not([open]) .mark { display:inline; }
.attempt.success .mark { color:var(--green); } .attempt.failure .mark { color:var(--red); }
.attempt > summary { cursor:pointer; list-style:none; padding:8px 10px; display:flex; flex-wrap:wrap; gap:4px 8px; align-items:center; }
.attempt > summary::-webkit-details-marker { display:none; }
.attempt[open] > summary { border-bottom:1px solid var(--soft); }
.harness { font-family:var(--mono); font-size:12.5px; font-weight:600; }
.meta { flex-basis:100%; color:var(--faint); font-size:11.5px; }
.badge { font-size:11px; border-radius:999px; padding:0 8px; font-weight:600; }
.badge.ok { background:#dafbe1; color:var(--green); } .badge.fail { background:#ffebe9; color:var(--red); } .badge.infra { background:#fff8c5; color:#7d4e00; }
.transcript { list-style:none; margin:0; padding:8px 10px; display:flex; flex-direction:column; gap:8px; }
.msg .role { font-size:10.5px; text-transform:uppercase; letter-spacing:0.05em; color:var(--faint); font-weight:600; margin-bottom:2px; }
.msg .text { white-space:pre-wrap; overflow-wrap:anywhere; font-size:12.5px; }
.msg.user .text { background:var(--page); border-radius:6px; padding:6px 8px; }
.msg.assistant .text { background:#f0f6ff; border-radius:6px; padding:6px 8px; }
.call { margin-top:4px; border-left:3px solid var(--blue); padding:2px 0 2px 8px; }
.tool-name { display:block; font-family:var(--mono); font-size:11px; color:var(--blue); font-weight:600; }
.call code { font-family:var(--mono); font-size:12px; white-space:pre-wrap; overflow-wrap:anywhere; }
pre.observation { margin:0; font-family:var(--mono); font-size:11.5px; background:#f6f8fa; border:1px solid var(--soft); border-radius:6px; padding:6px 8px; white-space:pre-wrap; overflow-wrap:anywhere; max-height:240px; overflow-y:auto; }
.elided { color:var(--faint); font-style:italic; }
.system-prompt > summary { cursor:pointer; color:var(--faint); font-size:11.5px; }
.system-prompt .text { color:var(--muted); font-size:11.5px; margin-top:4px; }
.prompt-diff { border:1px dashed #9bd5a9; border-radius:6px; padding:4px 8px; margin-bottom:4px; font-size:12px; }
.prompt-diff .diff-title { font-size:10.5px; text-transform:uppercase; letter-spacing:0.05em; color:var(--faint); font-weight:600; }
.prompt-diff .added { color:var(--green); } .prompt-diff .removed { color:var(--red); }
.checks { list-style:none; margin:0; padding:6px 10px 10px; font-size:12px; border-top:1px solid var(--soft); }
.checks .passed { color:var(--green); } .checks .failed { color:var(--red); }
.checks .detail { display:block; color:var(--muted); font-family:var(--mono); font-size:11px; overflow-wrap:anywhere; }
footer { color:var(--faint); font-size:12px; margin:36px 0 40px; border-top:1px solid var(--line); padding-top:12px; }
footer details { margin-top:6px; } footer pre { white-space:pre-wrap; font-size:11px; }
.warnings { color:#7d4e00; }
`;

/** The report's only script: open or close every attempt of a group at once. */
export const reportScript = `
document.addEventListener('click', function (event) {
  var target = event.target;
  var button = target && target.closest ? target.closest('button[data-attempts]') : null;
  if (!button) return;
  var open = button.getAttribute('data-attempts') === 'open';
  var group = button.closest('.group');
  if (!group) return;
  group.querySelectorAll('details.attempt').forEach(function (attempt) { attempt.open = open; });
});
`;
