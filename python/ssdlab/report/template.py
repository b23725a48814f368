"""The page template (jinja2), kept in Python so it ships with the package as code.

One offline file: styles, the Vega bundle and the page's own script are inline. The page
reads as a review: the summary first (id `summary`), navigation that wraps, charts with
long tables folded under them, sortable tables, internal metric names only as tooltips,
and a print stylesheet so the browser's "print to PDF" gives a clean document.
"""
# ruff: noqa: E501  (HTML lines are kept whole for readability)

# The mark by which a page ssdlab wrote is told from any other file (page.is_ssdlab_page): -o
# replaces only such a page. Every page has carried it in its head since the first.
GENERATOR_META = '<meta name="generator" content="ssdlab">'

PAGE_TEMPLATE = r"""<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="generator" content="ssdlab">
<title>{{ page.title }}</title>
<style>
:root { --ink: #1d2330; --muted: #5b6475; --line: #d9dee7; --accent: #1f5fbf; --warn-bg: #fff4d6;
        --warn: #8a5a00; --bad: #a3262b; --good: #1c6b34; --panel: #f6f8fb; }
* { box-sizing: border-box; }
body { margin: 0; font: 15px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, "DejaVu Sans", sans-serif;
       color: var(--ink); background: #fff; }
header.masthead { background: linear-gradient(135deg, #16294a, #1f5fbf); color: #fff; padding: 28px 40px 22px; }
header.masthead h1 { margin: 0 0 4px; font-size: 28px; font-weight: 650; letter-spacing: -0.01em; }
header.masthead p { margin: 0; opacity: 0.85; }
main { max-width: 1180px; margin: 0 auto; padding: 8px 40px 40px; }
nav.toc { display: flex; flex-wrap: wrap; gap: 4px 14px; margin: 18px 0 8px; font-size: 14px; color: var(--muted); }
nav.toc a { color: var(--accent); text-decoration: none; }
nav.toc a:hover { text-decoration: underline; }
.banner { margin: 18px 0; padding: 12px 16px; border-left: 5px solid var(--warn); background: var(--warn-bg);
          color: var(--warn); font-weight: 600; }
section.summary { margin-top: 18px; padding: 16px 20px; background: var(--panel); border: 1px solid var(--line); border-radius: 8px; }
section.summary h2 { margin: 0 0 8px; font-size: 20px; }
table.findings { width: 100%; margin: 0; }
table.findings th { width: 24%; font-weight: 600; color: var(--ink); }
table.findings td, table.findings th { border-bottom: 1px solid var(--line); padding: 7px 10px 7px 0; }
table.findings .rule { display: block; color: var(--muted); font-size: 12.5px; margin-top: 2px; }
table.findings tr.absent td, table.findings tr.absent th { color: var(--muted); font-weight: 400; }
table.findings tr.unreliable td { color: var(--warn); font-size: 13.5px; }
.unreliable-mark { color: var(--warn); font-weight: 700; }
.absent-finding { text-decoration: underline dotted #b5bdca; text-underline-offset: 3px; }
table.findings a { color: var(--accent); font-size: 13px; text-decoration: none; white-space: nowrap; }
.badge { display: inline-block; font-size: 11px; font-weight: 700; text-transform: uppercase; padding: 1px 7px; border-radius: 10px; margin-right: 6px; vertical-align: 1px; }
.badge.yes { background: #e3f4e7; color: var(--good); }
.badge.no { background: #fbe4e4; color: var(--bad); }
.badge.inconclusive { background: var(--warn-bg); color: var(--warn); }
.intro { display: grid; grid-template-columns: repeat(auto-fit, minmax(420px, 1fr)); gap: 20px; margin-top: 18px; }
.intro .card { background: var(--panel); border: 1px solid var(--line); border-radius: 8px; padding: 14px 18px; overflow-x: auto; }
.intro h2 { font-size: 16px; margin: 0 0 8px; text-transform: uppercase; letter-spacing: 0.05em; color: var(--muted); }
section.test { margin-top: 38px; padding-top: 10px; border-top: 2px solid var(--line); }
section.test h2 { font-size: 22px; margin: 6px 0 4px; }
.status { display: inline-block; font-size: 12px; font-weight: 700; padding: 2px 8px; border-radius: 10px;
          vertical-align: middle; margin-left: 8px; text-transform: uppercase; letter-spacing: 0.04em; }
.status.complete, .status.in-all-runs, .status.ranked { background: #e3f4e7; color: var(--good); }
.status.interrupted, .status.running, .status.pending, .status.methods-differ { background: var(--warn-bg); color: var(--warn); }
.status.failed { background: #fbe4e4; color: var(--bad); }
.status.gaps { background: #eceff4; color: var(--muted); }
p.caption { color: var(--muted); margin: 4px 0 12px; max-width: 920px; }
ul.notes { margin: 6px 0 12px; padding-left: 20px; color: var(--warn); }
.table-wrap { overflow-x: auto; max-width: 100%; }
table { border-collapse: collapse; margin: 8px 0 6px; font-variant-numeric: tabular-nums; }
table.data { min-width: 60%; }
th, td { padding: 5px 12px; border-bottom: 1px solid var(--line); text-align: left; vertical-align: top; }
thead th { background: #eef2f8; font-size: 13px; color: #334; border-bottom: 2px solid #c4ccd9; }
table.sortable thead th { cursor: pointer; user-select: none; }
table.sortable thead th[aria-sort="ascending"]::after { content: " ▲"; font-size: 10px; }
table.sortable thead th[aria-sort="descending"]::after { content: " ▼"; font-size: 10px; }
td.num, th.num { text-align: right; }
td[title] { text-decoration: underline dotted #b5bdca; text-underline-offset: 3px; }
table.facts th { font-weight: 500; color: var(--muted); padding-left: 0; width: 42%; }
table.facts td, table.facts th { border-bottom: 1px dotted var(--line); }
h3 { font-size: 16px; margin: 18px 0 4px; }
details.table { margin: 10px 0; }
details.table > summary { cursor: pointer; color: var(--accent); font-weight: 600; margin: 6px 0; }
figure { margin: 16px 0 22px; }
figure .chart { min-height: 60px; }
figure .chart img { max-width: 100%; height: auto; }
figcaption { color: var(--muted); font-size: 13px; max-width: 900px; }
figcaption a { color: var(--accent); }
.vega-bindings { font-size: 13px; margin: 4px 0; }
.vega-bindings select, .vega-bindings input { font: inherit; }
footer { color: var(--muted); font-size: 12px; border-top: 1px solid var(--line); margin-top: 40px; padding-top: 10px; }
#render-status { display: none; }
.verdict { margin: 10px 0 14px; padding: 10px 14px; border-radius: 6px; border: 1px solid var(--line); background: var(--panel); }
.verdict .outcome { display: inline-block; font-size: 12px; font-weight: 700; text-transform: uppercase; padding: 1px 8px; border-radius: 10px; margin-right: 6px; }
.verdict.yes .outcome { background: #e3f4e7; color: var(--good); }
.verdict.no .outcome { background: #fbe4e4; color: var(--bad); }
.verdict.inconclusive .outcome { background: var(--warn-bg); color: var(--warn); }
.verdict .rule { color: var(--muted); font-size: 13px; margin-top: 4px; }
@media print {
  @page { margin: 14mm 12mm; }
  body { font-size: 11pt; }
  header.masthead { background: none; color: var(--ink); padding: 0 0 8px; border-bottom: 2px solid var(--ink); }
  main { max-width: none; padding: 0; }
  nav.toc, .png-link, .vega-bindings, details.table > summary::marker { display: none; }
  section.test { break-before: auto; border-top: 1px solid var(--line); }
  section.test h2, h3 { break-after: avoid; }
  figure, table.facts, .verdict, section.summary tr { break-inside: avoid; }
  a { color: inherit; text-decoration: none; }
  table.findings a { display: none; }
  .intro { grid-template-columns: 1fr 1fr; }
  .intro .card, section.summary { background: none; }
  /* A scroll box prints only what fits in it: a wide comparison table lost its right-hand columns. */
  .table-wrap, .intro .card { overflow: visible; }
  table { width: 100%; }
  tr, img { break-inside: avoid; }
  thead { display: table-header-group; }
}
</style>
</head>
<body>
<header class="masthead">
  <h1>{{ page.title }}</h1>
  <p>{{ page.subtitle }}</p>
</header>
<main>
{% if sections or page.summary %}
<nav class="toc" aria-label="Sections">
{% if page.summary %}<a href="#summary">Summary</a>{% endif %}
{% for rs in sections %}<a href="#{{ rs.anchor }}">{{ rs.section.title }}</a>{% endfor %}
</nav>
{% endif %}
{% if page.banner %}<div class="banner" role="alert">{{ page.banner }}</div>{% endif %}
{% if page.summary %}
<section class="summary" id="summary">
  <h2 id="summary-title">Summary</h2>
  <table class="findings" aria-labelledby="summary-title"><tbody>
  {% for f in page.summary if f.measured %}
  <tr class="measured" id="finding-{{ f.key|slug }}">
    <th>{{ f.title }}</th>
    <td>{% if f.outcome %}<span class="badge {{ f.outcome }}">{{ f.outcome }}</span>{% endif %}{{ f.text|marks }}<span class="rule">Rule: {{ f.rule }}.</span></td>
    <td>{% if f.section %}<a href="#test-{{ f.section|slug }}">details →</a>{% endif %}</td>
  </tr>
  {% endfor %}
  {% if page.summary_note %}
  <tr class="unreliable" id="finding-unreliable"><td colspan="3">{{ page.summary_note|marks }}</td></tr>
  {% endif %}
  {% set absent = page.summary|rejectattr("measured")|list %}
  {% if absent %}
  <tr class="absent" id="finding-not-measured">
    <th>Not measured in this run</th>
    <td>{% for f in absent %}<span class="absent-finding" id="finding-{{ f.key|slug }}" title="{{ f.title }}: {{ f.text }}. Rule: {{ f.rule }}.">{{ f.title }}</span>{% if not loop.last %} · {% endif %}{% endfor %}<span class="rule">Each is {{ absent[0].text }}: the run has no test that measures it (hover for the rule).</span></td>
    <td></td>
  </tr>
  {% endif %}
  </tbody></table>
</section>
{% endif %}
<div class="intro">
{% for table in page.intro %}
  <div class="card">
    <h2 id="intro-{{ table.key|slug }}-title">{{ table.title }}</h2>
    {% if table.header|length == 2 %}
    <table class="facts" id="intro-{{ table.key|slug }}" aria-labelledby="intro-{{ table.key|slug }}-title"><tbody>
    {% for row in table.rows %}<tr><th>{{ row[0] }}</th><td>{{ row[1] }}</td></tr>
    {% endfor %}
    </tbody></table>
    {% else %}
    <table class="data" id="intro-{{ table.key|slug }}" aria-labelledby="intro-{{ table.key|slug }}-title"><thead><tr>{% for h in table.header %}<th>{{ h }}</th>{% endfor %}</tr></thead><tbody>
    {% for row in table.rows %}<tr>{% for cell in row %}<td>{{ cell }}</td>{% endfor %}</tr>
    {% endfor %}
    </tbody></table>
    {% endif %}
  </div>
{% endfor %}
</div>
{% for rs in sections %}
<section class="test" id="{{ rs.anchor }}">
  <h2>{{ rs.section.title }}<span class="status {{ rs.section.status|slug }}">{{ rs.section.status }}</span></h2>
  <p class="caption">{{ rs.section.caption|marks }}</p>
  {% if rs.section.notes %}<ul class="notes">{% for note in rs.section.notes %}<li>{{ note }}</li>{% endfor %}</ul>{% endif %}
  {% for v in rs.section.verdicts %}
  <div class="verdict {{ v.outcome }}" id="verdict-{{ rs.anchor }}-{{ v.key|slug }}">
    <span class="outcome">{{ v.outcome }}</span> <strong>{{ v.summary|marks }}</strong>
    <div class="rule">{{ v.question }} Rule: {{ v.rule }}.{% if v.because %} Here: {{ v.because }}.{% endif %}</div>
  </div>
  {% endfor %}
  {% if rs.section.verdict_note %}<p class="caption" id="verdict-note-{{ rs.anchor }}">{{ rs.section.verdict_note|marks }}</p>{% endif %}
  {% macro one_table(table) %}
  <div class="table-wrap">
  <table class="data sortable" id="table-{{ table.key|slug }}" aria-labelledby="table-{{ table.key|slug }}-title">
    <thead><tr>{% for h in table.header %}<th{% if not loop.first %} class="num"{% endif %}>{{ h }}</th>{% endfor %}</tr></thead>
    <tbody>
    {% for row in table.rows %}{% set key = table.row_keys[loop.index0] if table.row_keys else None %}<tr>{% for cell in row %}<td{% if not loop.first and cell is numeric %} class="num"{% endif %}{% if loop.first and key %} title="{{ key }}"{% endif %}>{{ cell|marks }}</td>{% endfor %}</tr>
    {% endfor %}
    </tbody>
  </table>
  </div>
  {% if table.caption %}<p class="caption">{{ table.caption|marks }}</p>{% endif %}
  {% endmacro %}
  {% macro tables() %}
  {% for table in rs.section.tables %}
  {% if table.collapsed or table.rows|length > collapse_rows %}
  <details class="table"><summary id="table-{{ table.key|slug }}-title">{{ table.title|marks }} ({{ table.rows|length }} rows)</summary>
  {{ one_table(table) }}
  </details>
  {% else %}
  <h3 id="table-{{ table.key|slug }}-title">{{ table.title|marks }}</h3>
  {{ one_table(table) }}
  {% endif %}
  {% endfor %}
  {% endmacro %}
  {% macro figures() %}
  {% for fig in rs.figures %}
  <figure>
    <h3>{{ fig.title }}</h3>
    <div class="chart" id="{{ fig.element_id }}" data-spec="{{ fig.element_id }}-spec" data-datasets="{{ fig.datasets|join(' ') }}"><img src="{{ fig.png_href }}" loading="lazy" alt="Chart: {{ fig.title }}"{% if fig.png_width_px %} width="{{ fig.png_width_px }}"{% endif %}></div>
    <script type="application/json" id="{{ fig.element_id }}-spec">{{ fig.spec_json|safe }}</script>
    <figcaption>{{ fig.caption|marks }} <a class="png-link" href="{{ fig.png_href }}">PNG</a></figcaption>
  </figure>
  {% endfor %}
  {% endmacro %}
  {% if rs.section.figures_first or rs.section.tables|selectattr("rows", "long", collapse_rows)|list %}{{ figures() }}{{ tables() }}{% else %}{{ tables() }}{{ figures() }}{% endif %}
  {% if not rs.section.tables and not rs.figures %}<p class="caption"><em>No results recorded.</em></p>{% endif %}
</section>
{% endfor %}
<footer>{{ page.footer }}</footer>
</main>
<pre id="render-status"></pre>
{% for name, rows in datasets.items() %}
<script type="application/json" id="{{ name }}">{{ rows|safe }}</script>
{% endfor %}
<script>{{ vega_js|safe }}</script>
<script>
(function () {
  "use strict";
  var status = { charts: {}, marks: {}, errors: [], resources: [], done: false };
  var out = document.getElementById("render-status");
  function write() { out.textContent = JSON.stringify(status); }
  window.addEventListener("error", function (e) { status.errors.push(String(e.message)); write(); });
  var consoleError = console.error;
  console.error = function () {
    status.errors.push(Array.prototype.map.call(arguments, String).join(" "));
    consoleError.apply(console, arguments);
  };
  // Data marks drawn (axes, legends and titles left out): 0 is an empty chart.
  function countMarks(item) {
    var count = 0;
    (item.items || []).forEach(function (child) {
      if (child.marktype && child.marktype !== "group" && child.role === "mark") { count += (child.items || []).length; }
      count += countMarks(child);
    });
    return count;
  }
  var nodes = Array.prototype.slice.call(document.querySelectorAll(".chart[data-spec]"));
  var jobs = nodes.map(function (node) {
    try {
      var spec = JSON.parse(document.getElementById(node.dataset.spec).textContent);
      // Its data, written once on the page for all the charts that draw it (page_data.py): a copy
      // of its own, as Vega writes into the rows it draws.
      (node.dataset.datasets || "").split(" ").filter(Boolean).forEach(function (name) {
        spec.datasets = spec.datasets || {};
        spec.datasets[name] = JSON.parse(document.getElementById(name).textContent);
      });
      return vegaEmbed(node, spec, { actions: false, renderer: "svg" }).then(function (result) {
        status.charts[node.id] = node.querySelector("svg") ? "ok" : "error: no svg";
        status.marks[node.id] = countMarks(result.view.scenegraph().root);
      }).catch(function (err) {
        status.charts[node.id] = "error: " + err;
        status.errors.push(String(err));
        node.textContent = "Chart failed to render: " + err;
      });
    } catch (err) {
      status.charts[node.id] = "error: " + err;
      status.errors.push(String(err));
      return Promise.resolve();
    }
  });
  Promise.all(jobs).then(function () {
    status.resources = performance.getEntriesByType("resource").map(function (r) { return r.name; });
    status.done = true;
    write();
  });
  // Sortable tables: a click on a heading sorts by that column (numbers as numbers, gaps last; a
  // lower bound, "≥ 315.01 (never throttled)", by its number: the drive is at least that).
  function cellValue(row, index) {
    var text = (row.cells[index] ? row.cells[index].textContent : "").trim();
    var figure = text.replace(/^≥\s*/, "");
    var number = parseFloat(figure.replace(/[,\s%+]/g, "").replace(/[A-Za-zµ\/]+$/, ""));
    return { text: text, number: /^[+-]?[\d,.]+/.test(figure) ? number : NaN };
  }
  Array.prototype.forEach.call(document.querySelectorAll("table.sortable"), function (table) {
    Array.prototype.forEach.call(table.tHead.rows[0].cells, function (th, index) {
      th.addEventListener("click", function () {
        var ascending = th.getAttribute("aria-sort") !== "ascending";
        Array.prototype.forEach.call(table.tHead.rows[0].cells, function (h) { h.removeAttribute("aria-sort"); });
        th.setAttribute("aria-sort", ascending ? "ascending" : "descending");
        var rows = Array.prototype.slice.call(table.tBodies[0].rows);
        rows.sort(function (a, b) {
          var x = cellValue(a, index), y = cellValue(b, index);
          if (isNaN(x.number) !== isNaN(y.number)) { return isNaN(x.number) ? 1 : -1; }
          var order = isNaN(x.number) ? x.text.localeCompare(y.text) : x.number - y.number;
          return ascending ? order : -order;
        });
        rows.forEach(function (row) { table.tBodies[0].appendChild(row); });
      });
    });
  });
  // Print everything: folded tables open for printing and fold again afterwards.
  var folded = [];
  window.addEventListener("beforeprint", function () {
    folded = Array.prototype.filter.call(document.querySelectorAll("details"), function (d) { return !d.open; });
    folded.forEach(function (d) { d.open = true; });
  });
  window.addEventListener("afterprint", function () { folded.forEach(function (d) { d.open = false; }); });
})();
</script>
</body>
</html>
"""
