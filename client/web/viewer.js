/* mpiwatch's viewer: draws a report (docs/report-format.md, the schema
 * SCHEMA below) read from the page's own <script id="mw-data">, or, on
 * the live page (mpiwatch --web), each state as mpiwatch streams it.
 * Every string that comes from the report is hostile: it only ever reaches
 * the page as textContent or a chart label, never as HTML.
 * What the page drew is also written into data-mw-* attributes and
 * #mw-matrix-cells, for tests that read the DOM (tests/client/check-web-report.sh). */
(function () {
  "use strict";

  /* The schema name, from include/mpiwatch_report.h: embed.py leaves the
   * placeholder to the C compiler, which puts MW_REPORT_SCHEMA there. */
  var SCHEMA = "@MW_REPORT_SCHEMA@";
  var MAX_BARS = 64;        /* per-rank chart: more ranks are shown in blocks */
  /* The matrix's rows and columns before blocks: MW_VIEWER_MATRIX_BLOCKS
   * (include/mpiwatch_viewer.h), put here as the schema is. */
  var MAX_CELLS = +"@MW_MATRIX_BLOCKS@";
  var MAX_SERIES = 8;       /* functions named in stacked charts, then "other" */
  var MAX_ROWS = 500;       /* table rows shown */
  var COLORS = ["#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b",
                "#e377c2", "#17becf", "#bcbd22", "#7f7f7f"];
  var charts = [];

  function $(id) { return document.getElementById(id); }
  function num(x) { return typeof x === "number" && isFinite(x) ? x : 0; }
  function int(x) { return typeof x === "number" && isFinite(x) ? Math.floor(x) : -1; }
  function str(x) { return typeof x === "string" ? x : (x === undefined || x === null ? "" : String(x)); }
  function obj(x) { return x !== null && typeof x === "object" && !Array.isArray(x) ? x : null; }
  function arr(x) { return Array.isArray(x) ? x : []; }
  function entries(o) {
    var out = [];
    o = obj(o);
    if (o) for (var k in o) if (Object.prototype.hasOwnProperty.call(o, k)) out.push([k, o[k]]);
    return out;
  }
  function el(tag, text, cls) {
    var e = document.createElement(tag);
    if (text !== undefined && text !== null) e.textContent = text;
    if (cls) e.className = cls;
    return e;
  }
  function clear(e) { while (e.firstChild) e.removeChild(e.firstChild); return e; }

  function fmtTime(s) {
    s = num(s);
    var a = Math.abs(s);
    if (a === 0) return "0";
    if (a < 1e-6) return (s * 1e9).toPrecision(3) + " ns";
    if (a < 1e-3) return (s * 1e6).toPrecision(3) + " \u00b5s";
    if (a < 1) return (s * 1e3).toPrecision(3) + " ms";
    return s.toPrecision(4) + " s";
  }
  function fmtBytes(b) {
    b = num(b);
    var units = ["B", "KiB", "MiB", "GiB", "TiB", "PiB"], i = 0;
    while (Math.abs(b) >= 1024 && i < units.length - 1) { b /= 1024; i++; }
    return (i === 0 ? String(Math.round(b)) : b.toPrecision(3)) + " " + units[i];
  }
  function fmtCount(n) { return num(n).toLocaleString("en-US"); }
  function fmtPct(p) { return (num(p) * 100).toFixed(1) + " %"; }
  function rankRange(lo, hi) { return lo === hi ? String(lo) : lo + "\u2013" + hi; }

  function fail(msg) {
    if (window.mwShowError) window.mwShowError(msg);
  }

  /* The world ranks the per-rank charts span: a report merged from partial
     profiles (mpiwatch --merge) has the job's, present or missing. */
  function worldRanks(R) {
    var merged = obj(R.merged);
    return merged && int(merged.world_size) > 0 ? int(merged.world_size) : int(R.ranks);
  }

  /* ---------------------------------------------------------------- header */
  function header(R) {
    var program = str(R.program) || "?";
    document.title = "mpiwatch: " + program + " on " + int(R.ranks) + " ranks";
    var L = obj(R.live);
    $("mw-title").textContent = (L ? (L.recording ? "mpiwatch recording: " : "mpiwatch live: ") : "mpiwatch report: ") + program + ", " + int(R.ranks) + " ranks";
    var dl = clear($("mw-meta"));
    function row(k, v) {
      if (v === "" || v === undefined) return;
      dl.appendChild(el("dt", k));
      dl.appendChild(el("dd", v));
    }
    var snap = obj(R.snapshot);
    if (snap) row("snapshot", "rank " + int(snap.rank) + "'s own profile, snapshot " + int(snap.index));
    var merged = obj(R.merged);
    if (merged) {
      var missing = arr(merged.missing).map(int);
      row("merged", "the partial profiles of " + int(R.ranks) + " of " + int(merged.world_size) +
          " ranks (the job did not reach MPI_Finalize); " + (missing.length ? "missing: ranks " +
          missing.join(", ") : "none missing") + "; reasons: " + arr(merged.ranks).map(function (r) {
            return str(obj(r) && r.reason);
          }).filter(function (v, i, a) { return a.indexOf(v) === i; }).join(", "));
    }
    row("command", str(R.command));
    row("hosts", str(R.hosts));
    row("MPI", str(R.mpi) + (R.library ? " (" + str(R.library) + ")" : ""));
    row("timer", str(R.timer));
    if (num(R.start) > 0) row("run", new Date(num(R.start) * 1000).toISOString().replace("T", " ").slice(0, 19) +
                                   " UTC to " + new Date(num(R.end) * 1000).toISOString().slice(11, 19));
    var app = obj(R.app_time), mpi = obj(R.mpi_time);
    if (app) row("application time", "mean " + fmtTime(app.mean) + ", least " + fmtTime(app.min) +
                 " (rank " + int(app.min_rank) + "), most " + fmtTime(app.max) + " (rank " + int(app.max_rank) + ")");
    if (mpi) row("MPI time", "mean " + fmtTime(mpi.mean) + (num(app && app.mean) > 0 ?
                 " (" + fmtPct(num(mpi.mean) / num(app.mean)) + " of the application time)" : "") +
                 ", least " + fmtTime(mpi.min) + " (rank " + int(mpi.min_rank) + "), most " +
                 fmtTime(mpi.max) + " (rank " + int(mpi.max_rank) + ")");
  }

  /* ---------------------------------------------------------------- charts */
  function chartOk() {
    return typeof window.Chart === "function";
  }
  function newChart(canvas, config) {
    config.options = config.options || {};
    config.options.animation = false;
    config.options.responsive = true;
    config.options.maintainAspectRatio = false;
    var c = new window.Chart(canvas, config);
    charts.push(c);
    return c;
  }

  /* Names the most expensive series and folds the rest into "other".
   * totals: {name: value}; returns the names kept, biggest first. */
  function topSeries(totals) {
    var names = Object.keys(totals).filter(function (k) { return totals[k] > 0; });
    names.sort(function (a, b) { return totals[b] - totals[a] || (a < b ? -1 : 1); });
    return names.length > MAX_SERIES + 1 ? names.slice(0, MAX_SERIES) : names;
  }

  /* ---------------------------------------------------------------- per rank */
  function perRank(R) {
    var n = worldRanks(R), section = $("mw-ranks-section"), note = $("mw-ranks-note");
    if (n <= 0) { note.textContent = "The report has no ranks."; return; }
    var fnInfo = obj(R.functions) || {};
    var rf = obj(R.rank_functions);
    var names = rf ? arr(rf.functions).map(str) : [];
    var perFn = {};          /* name -> Float64Array(n) of seconds */
    var totals = {};
    if (rf && names.length) {
      arr(rf.ranks).forEach(function (e) {
        e = obj(e);
        if (!e) return;
        var r = int(e.rank), t = arr(e.time);
        if (r < 0 || r >= n) return;
        names.forEach(function (name, k) {
          var f = obj(fnInfo[name]);
          if (f && f.mpi_time === false) return;   /* MPI_Init, MPI_Finalize */
          if (!perFn[name]) { perFn[name] = new Float64Array(n); totals[name] = 0; }
          perFn[name][r] += num(t[k]);
          totals[name] += num(t[k]);
        });
      });
    } else {
      perFn.MPI = new Float64Array(n);
      totals.MPI = 0;
      arr(R.rank_times).forEach(function (e) {
        e = obj(e);
        if (!e) return;
        var r = int(e.rank);
        if (r >= 0 && r < n) { perFn.MPI[r] += num(e.mpi); totals.MPI += num(e.mpi); }
      });
    }
    var keep = topSeries(totals);
    var other = Object.keys(perFn).filter(function (k) { return keep.indexOf(k) < 0; });
    var block = Math.ceil(n / MAX_BARS), bars = Math.ceil(n / block);
    var labels = [];
    for (var b = 0; b < bars; b++) labels.push(rankRange(b * block, Math.min(n, (b + 1) * block) - 1));
    function series(values) {
      var out = new Array(bars);
      for (var b = 0; b < bars; b++) {
        var lo = b * block, hi = Math.min(n, lo + block), s = 0;
        for (var r = lo; r < hi; r++) s += values[r];
        out[b] = s / (hi - lo);
      }
      return out;
    }
    var datasets = keep.map(function (name, i) {
      return { label: name, data: series(perFn[name]), backgroundColor: COLORS[i % COLORS.length] };
    });
    if (other.length) {
      var rest = new Float64Array(n);
      other.forEach(function (k) { for (var r = 0; r < n; r++) rest[r] += perFn[k][r]; });
      datasets.push({ label: "other (" + other.length + " functions)", data: series(rest),
                      backgroundColor: COLORS[COLORS.length - 1] });
    }
    if (block > 1) datasets = datasets.concat(blockExtremes(perFn, n, block, bars));
    note.textContent = (block > 1 ? "The " + n + " ranks are shown in " + bars + " blocks of " + block +
                        " consecutive ranks (the last may be smaller); each bar is the mean of its block's ranks, " +
                        "and the two lines are the most and the least MPI time of any one rank in the block, " +
                        "so that no outlier hides in a mean. " : "") +
                       (rf ? "MPI_Init and MPI_Finalize are not MPI time (see the header)." :
                        "The report has no rank x function matrix: MPI time per rank only.");
    section.setAttribute("data-mw-ranks", String(n));
    section.setAttribute("data-mw-block", String(block));
    if (!chartOk()) { fail("the chart library is missing from this page"); return; }
    var chart = newChart($("mw-ranks-chart"), {
      type: "bar",
      data: { labels: labels, datasets: datasets },
      options: {
        scales: { x: { stacked: true, title: { display: true, text: block > 1 ? "ranks (blocks)" : "rank" } },
                  y: { stacked: true, ticks: { callback: function (v) { return fmtTime(v); } },
                       title: { display: true, text: "time in MPI" + (block > 1 ? " (mean per rank)" : "") } } },
        plugins: { tooltip: { callbacks: { label: function (c) {
          return c.dataset.label + ": " + fmtTime(c.raw) + (c.dataset.ranks ? " (rank " + c.dataset.ranks[c.dataIndex] + ")" : "");
        } } } }
      }
    });
    section.setAttribute("data-mw-bars", String(chart.data.labels.length));
    section.setAttribute("data-mw-series", String(chart.data.datasets.length));
    var most = chart.data.datasets.filter(function (d) { return d.stack === "most"; })[0];
    if (most) {
      var top = most.data.indexOf(Math.max.apply(null, most.data));
      section.setAttribute("data-mw-most", most.ranks[top] + " " + most.data[top]);
    }
  }

  /* Lines over the blocks' bars: the most and the least MPI time of one rank
   * in each block, with the rank (in the tooltip). Each its own stack, so
   * neither is stacked on the bars. */
  function blockExtremes(perFn, n, block, bars) {
    var mpi = new Float64Array(n);
    Object.keys(perFn).forEach(function (k) { for (var r = 0; r < n; r++) mpi[r] += perFn[k][r]; });
    var most = [], least = [], mostRank = [], leastRank = [];
    for (var b = 0; b < bars; b++) {
      var lo = b * block, hi = Math.min(n, lo + block), at = lo, low = lo;
      for (var r = lo; r < hi; r++) {
        if (mpi[r] > mpi[at]) at = r;
        if (mpi[r] < mpi[low]) low = r;
      }
      most.push(mpi[at]); mostRank.push(at);
      least.push(mpi[low]); leastRank.push(low);
    }
    function line(label, data, ranks, stack, color) {
      return { type: "line", label: label, data: data, ranks: ranks, stack: stack, borderColor: color,
               backgroundColor: color, borderWidth: 1.5, pointRadius: 2, fill: false };
    }
    return [line("most MPI time of a rank", most, mostRank, "most", "#d62728"),
            line("least MPI time of a rank", least, leastRank, "least", "#111111")];
  }

  /* ---------------------------------------------------------------- tables */
  /* A table sorted by a click on a column's title. columns: [{title, get,
   * fmt, num}], rows: any objects that get() reads. */
  var sortState = {};   /* by table id: kept when the live page redraws */
  /* onRow(tr, row): each row's element as it is made (optional). */
  function table(t, columns, rows, sortCol, note, onRow) {
    var state = sortState[t.id] || (sortState[t.id] = { col: sortCol, desc: true });
    function draw() {
      clear(t);
      var thead = el("thead"), tr = el("tr");
      columns.forEach(function (c, i) {
        var th = el("th", c.title, c.num ? "num" : "");
        th.setAttribute("scope", "col");
        if (i === state.col) th.setAttribute("aria-sort", state.desc ? "descending" : "ascending");
        th.addEventListener("click", function () {
          state.desc = state.col === i ? !state.desc : !!c.num;
          state.col = i;
          draw();
        });
        tr.appendChild(th);
      });
      thead.appendChild(tr);
      t.appendChild(thead);
      var c = columns[state.col], sign = state.desc ? -1 : 1;
      var sorted = rows.slice().sort(function (a, b) {
        var x = c.get(a), y = c.get(b);
        return (x < y ? -1 : x > y ? 1 : 0) * sign;
      });
      var tbody = el("tbody");
      sorted.slice(0, MAX_ROWS).forEach(function (r) {
        var tr = el("tr");
        columns.forEach(function (c) {
          var v = c.get(r);
          tr.appendChild(el("td", c.fmt ? c.fmt(v, r) : str(v), c.num ? "num" : ""));
        });
        if (onRow) onRow(tr, r);
        tbody.appendChild(tr);
      });
      t.appendChild(tbody);
    }
    draw();
    t.setAttribute("data-mw-rows", String(rows.length));
    if (note && rows.length > MAX_ROWS)
      note.textContent += " The busiest " + MAX_ROWS + " of " + rows.length + " are shown.";
  }

  function rankStat(key, field) {
    return function (r) { var s = obj(r[key]); return s ? num(s[field]) : 0; };
  }
  function withRank(key, field, rankField) {
    return function (v, r) {
      var s = obj(r[key]);
      return fmtTime(v) + (s && int(s[rankField]) >= 0 ? " (" + int(s[rankField]) + ")" : "");
    };
  }

  function functionsTable(R) {
    var total = 0;
    var rows = entries(R.functions).map(function (e) {
      var f = obj(e[1]) || {};
      var r = { name: e[0], f: f, rank_time: f.rank_time };
      if (f.mpi_time !== false) total += num(f.time);
      return r;
    });
    var cols = [
      { title: "function", get: function (r) { return r.name; } },
      { report: true, title: "category", get: function (r) { return str(r.f.category); } },
      { title: "calls", num: true, get: function (r) { return num(r.f.calls); }, fmt: fmtCount },
      { title: "time", num: true, get: function (r) { return num(r.f.time); }, fmt: fmtTime },
      { title: "share of MPI time", num: true,
        get: function (r) { return r.f.mpi_time === false || total <= 0 ? 0 : num(r.f.time) / total; },
        fmt: function (v, r) { return r.f.mpi_time === false ? "not MPI time" : fmtPct(v); } },
      { title: "mean call", num: true,
        get: function (r) { return num(r.f.calls) > 0 ? num(r.f.time) / num(r.f.calls) : 0; }, fmt: fmtTime },
      { report: true, title: "longest call", num: true, get: function (r) { return num(r.f.max); }, fmt: fmtTime },
      { report: true, title: "least rank (rank)", num: true, get: rankStat("rank_time", "min"), fmt: withRank("rank_time", "min", "min_rank") },
      { report: true, title: "mean rank", num: true, get: rankStat("rank_time", "mean"), fmt: fmtTime },
      { report: true, title: "most rank (rank)", num: true, get: rankStat("rank_time", "max"), fmt: withRank("rank_time", "max", "max_rank") },
      { report: true, title: "CV", num: true, get: rankStat("rank_time", "cv"), fmt: function (v) { return v.toFixed(3); } },
      { title: "bytes sent", num: true, get: function (r) { return num(r.f.bytes_sent); }, fmt: fmtBytes },
      { title: "bytes received", num: true, get: function (r) { return num(r.f.bytes_recv); }, fmt: fmtBytes }
    ];
    /* The live state has no per-call extremes or spread over ranks: the report has them. */
    table($("mw-functions"), cols.filter(function (c) { return !(R.live && c.report); }), rows,
          R.live ? 2 : 3, null);
  }

  /* ---------------------------------------------------------------- matrix */
  function heat(t) {
    /* white through blue to dark violet */
    var stops = [[255, 255, 255], [198, 219, 239], [107, 174, 214], [33, 113, 181], [8, 48, 107], [63, 0, 125]];
    t = Math.max(0, Math.min(1, t)) * (stops.length - 1);
    var i = Math.min(stops.length - 2, Math.floor(t)), f = t - i, a = stops[i], b = stops[i + 1];
    return "rgb(" + Math.round(a[0] + (b[0] - a[0]) * f) + "," + Math.round(a[1] + (b[1] - a[1]) * f) + "," +
           Math.round(a[2] + (b[2] - a[2]) * f) + ")";
  }

  /* The matrix in at most MAX_CELLS x MAX_CELLS blocks of consecutive ranks:
   * from the exact matrix the mpiwatch client binned from the matrix file
   * (R.exact_matrix, docs/report-format.md "The HTML report"), else from the
   * report's pairs (each rank's 16 busiest destinations). pairsIn(r, c) is
   * the block's pairs as [from, to, bytes, messages], or null when the page
   * does not hold them. */
  function exactBlocks(R, n) {
    var X = obj(R.exact_matrix);
    if (!X) return null;
    var block = int(X.block), m = int(X.side), cells = arr(X.cells), listed = arr(X.pairs_listed);
    if (int(X.ranks) !== n || block < 1 || m < 1 || m !== Math.ceil(n / block) || m > MAX_CELLS)
      return { error: "The matrix file " + str(X.source) + " does not fit the report's " + n + " ranks (it has " +
                      int(X.ranks) + " ranks in " + m + " blocks of " + block + "): the report's pairs are drawn instead. " };
    var bytes = new Float64Array(m * m), msgs = new Float64Array(m * m);
    var count = new Float64Array(m * m), hasPairs = new Uint8Array(m * m);
    for (var i = 0; i + 5 < cells.length; i += 6) {
      var r = int(cells[i]), c = int(cells[i + 1]);
      if (r < 0 || r >= m || c < 0 || c >= m) continue;
      var k = r * m + c;
      bytes[k] += num(cells[i + 2]);
      msgs[k] += num(cells[i + 3]);
      count[k] += num(cells[i + 4]);
      hasPairs[k] = cells[i + 5] === 1 ? 1 : 0;
    }
    return {
      block: block, m: m, bytes: bytes, msgs: msgs, count: count, npairs: num(X.pairs),
      note: "Bytes sent from each rank (row) to each rank (column) by point-to-point and one-sided calls, " +
            "every pair of ranks, from the job's matrix file " + str(X.source) + " (" + fmtCount(X.pairs) +
            " pairs). ",
      pairsIn: function (r, c) {
        if (!hasPairs[r * m + c]) return null;
        var out = [], rlo = r * block, rhi = rlo + block, clo = c * block, chi = clo + block;
        for (var i = 0; i + 3 < listed.length; i += 4) {
          var from = listed[i], to = listed[i + 1];
          if (from >= rlo && from < rhi && to >= clo && to < chi) out.push(listed.slice(i, i + 4));
        }
        return out;
      },
      missing: "The page holds the pairs of the busiest blocks, " + fmtCount(X.listed) + " of " + fmtCount(X.pairs) +
               " pairs (at most " + fmtCount(X.listed_limit) + "); mpiwatch --matrix-file " + str(X.source) +
               " prints them all."
    };
  }

  function reportBlocks(R, n) {
    var block = Math.ceil(n / MAX_CELLS), m = Math.ceil(n / block);
    var bytes = new Float64Array(m * m), msgs = new Float64Array(m * m), count = new Float64Array(m * m);
    var pairs = [], ignored = 0;
    arr(R.pairs).forEach(function (p) {
      p = obj(p);
      if (!p) return;
      var from = int(p.from), to = int(p.to);
      if (from < 0 || from >= n || to < 0 || to >= n) { ignored++; return; }
      var k = Math.floor(from / block) * m + Math.floor(to / block);
      bytes[k] += num(p.bytes);
      msgs[k] += num(p.messages);
      count[k]++;
      pairs.push([from, to, num(p.bytes), num(p.messages)]);
    });
    return {
      block: block, m: m, bytes: bytes, msgs: msgs, count: count, npairs: pairs.length,
      note: "Bytes sent from each rank (row) to each rank (column) by point-to-point and one-sided calls. " +
            "Each rank reports its 16 busiest destinations (mpiwatch --report R.json --html draws every pair " +
            "from the matrix file beside the report). " +
            (ignored ? ignored + " pairs with ranks outside the job were left out. " : ""),
      pairsIn: function (r, c) {
        return pairs.filter(function (p) {
          return Math.floor(p[0] / block) === r && Math.floor(p[1] / block) === c;
        });
      },
      missing: ""
    };
  }

  function matrix(R) {
    var n = worldRanks(R), section = $("mw-matrix-section"), note = $("mw-matrix-note");
    var canvas = $("mw-matrix"), tip = $("mw-matrix-tip");
    $("mw-matrix-drill").hidden = true;
    if (n <= 0) { note.textContent = "The report has no ranks."; canvas.hidden = true; return; }
    var B = exactBlocks(R, n), problem = "";
    if (B && B.error) { problem = B.error; B = null; }
    var exact = !!B;
    if (!B) B = reportBlocks(R, n);
    var block = B.block, m = B.m, bytes = B.bytes, msgs = B.msgs;
    var max = 0, min = Infinity, nonzero = [];
    for (var k = 0; k < m * m; k++) if (bytes[k] > 0 || msgs[k] > 0) {
      max = Math.max(max, bytes[k]);
      if (bytes[k] > 0) min = Math.min(min, bytes[k]);
      nonzero.push(Math.floor(k / m) + " " + (k % m) + " " + bytes[k] + " " + msgs[k]);
    }
    note.textContent = problem + B.note + "Darker is more, on a logarithmic scale from the least cell to the most. " +
      (block > 1 ? "The " + n + " ranks are shown in " + m + " blocks of " + block +
                   " consecutive ranks; a cell sums the bytes and messages between two blocks. " : "") +
      (B.npairs === 0 ? "No rank sent a point-to-point or one-sided message." : "");
    section.setAttribute("data-mw-matrix", m + "x" + m);
    section.setAttribute("data-mw-block", String(block));
    section.setAttribute("data-mw-nonzero", String(nonzero.length));
    section.setAttribute("data-mw-matrix-source", exact ? "exact" : "report");
    $("mw-matrix-cells").textContent = nonzero.join("\n");

    var cell = Math.max(3, Math.min(48, Math.floor(768 / m))), pad = m <= 32 ? 28 : 36;
    var size = m * cell;
    canvas.width = size + pad;
    canvas.height = size + pad;
    canvas.setAttribute("data-mw-cell", String(cell));    /* where a test clicks a block */
    canvas.setAttribute("data-mw-pad", String(pad));
    var ctx = canvas.getContext("2d");
    ctx.fillStyle = "#ffffff";
    ctx.fillRect(0, 0, canvas.width, canvas.height);
    /* Logarithmic from the least cell to the most, so that a dense matrix
     * of similar cells still shows its differences. */
    var logMin = Math.log(max > 0 ? min : 1), logSpan = Math.log(max > 0 ? max : 1) - logMin;
    function shade(v) { return heat(0.12 + 0.88 * (logSpan > 0 ? (Math.log(v) - logMin) / logSpan : 1)); }
    for (var r = 0; r < m; r++) for (var c = 0; c < m; c++) {
      var v = bytes[r * m + c];
      ctx.fillStyle = v > 0 ? shade(v) : (msgs[r * m + c] > 0 ? heat(0.05) : "#f2f3f5");
      ctx.fillRect(pad + c * cell, pad + r * cell, cell - (cell > 8 ? 1 : 0), cell - (cell > 8 ? 1 : 0));
    }
    ctx.fillStyle = "#5a6270";
    ctx.font = "10px sans-serif";
    var every = Math.max(1, Math.ceil(m / 16));
    ctx.textAlign = "center";
    for (var i = 0; i < m; i += every) {
      ctx.fillText(String(i * block), pad + i * cell + cell / 2, pad - 6);
      ctx.save();
      ctx.textAlign = "right";
      ctx.fillText(String(i * block), pad - 4, pad + i * cell + cell / 2 + 3);
      ctx.restore();
    }
    var legend = clear($("mw-matrix-legend"));
    legend.appendChild(el("div", max > 0 ? fmtBytes(max) : "0 B"));
    var bar = el("div", null, "legend-bar");
    bar.style.background = "linear-gradient(to top, " + [0.12, 0.3, 0.5, 0.7, 0.85, 1].map(heat).join(", ") + ")";
    legend.appendChild(bar);
    legend.appendChild(el("div", max > 0 ? fmtBytes(min) : ""));
    legend.appendChild(el("div", "from: row; to: column"));
    var hint = "Point at a cell to see its bytes and messages; click it to list its pairs.";
    tip.textContent = hint;
    function cellAt(ev) {
      var rect = canvas.getBoundingClientRect();
      var x = (ev.clientX - rect.left) * canvas.width / rect.width - pad;
      var y = (ev.clientY - rect.top) * canvas.height / rect.height - pad;
      var c = Math.floor(x / cell), r = Math.floor(y / cell);
      return x < 0 || y < 0 || c >= m || r >= m ? null : { r: r, c: c };
    }
    function blockName(at) {
      return "from rank " + rankRange(at.r * block, Math.min(n, (at.r + 1) * block) - 1) + " to rank " +
        rankRange(at.c * block, Math.min(n, (at.c + 1) * block) - 1) + ": " + fmtBytes(bytes[at.r * m + at.c]) +
        " in " + fmtCount(msgs[at.r * m + at.c]) + " messages";
    }
    canvas.onmousemove = function (ev) {
      var at = cellAt(ev);
      tip.textContent = at ? blockName(at) + (block > 1 ? ", " + fmtCount(B.count[at.r * m + at.c]) + " pairs" : "") : hint;
    };
    var image = ctx.getImageData(0, 0, canvas.width, canvas.height);   /* the matrix without an outline */
    canvas.onclick = function (ev) {
      var at = cellAt(ev);
      if (!at) return;
      ctx.putImageData(image, 0, 0);
      ctx.strokeStyle = "#e8590c";
      ctx.lineWidth = 2;
      ctx.strokeRect(pad + at.c * cell - 2, pad + at.r * cell - 2, cell + 3, cell + 3);
      drill(at, blockName(at), B.pairsIn(at.r, at.c), B.missing, exact);
    };
  }

  /* A block's pairs below the matrix (a click on it). */
  function drill(at, name, pairs, missing, exact) {
    var box = $("mw-matrix-drill"), t = $("mw-matrix-drill-pairs"), note = $("mw-matrix-drill-note");
    box.hidden = false;
    box.setAttribute("data-mw-drill", at.r + " " + at.c);
    box.setAttribute("data-mw-drill-pairs", pairs ? String(pairs.length) : "none");
    note.textContent = "The block " + name + ". " +
      (pairs === null ? "Its pairs are not in this page. " + missing :
       pairs.length === 0 ? "No pair of its ranks exchanged messages." :
       exact ? "Its " + pairs.length + " pairs:" : "The report's pairs in it (each rank's 16 busiest destinations):");
    t.hidden = !pairs || pairs.length === 0;
    $("mw-matrix-drill-cells").textContent = (pairs || []).map(function (p) { return p.join(" "); }).join("\n");
    if (t.hidden) { clear(t); return; }
    table(t, [
      { title: "from", num: true, get: function (p) { return p[0]; } },
      { title: "to", num: true, get: function (p) { return p[1]; } },
      { title: "bytes", num: true, get: function (p) { return num(p[2]); }, fmt: fmtBytes },
      { title: "messages", num: true, get: function (p) { return num(p[3]); }, fmt: fmtCount }
    ], pairs, 2, note);
  }

  /* ---------------------------------------------------------------- message sizes */
  function sizeLabel(lo, hi) {
    if (lo === 0 && hi <= 1) return "0 B";
    return fmtBytes(lo) + "\u2013" + fmtBytes(hi);
  }
  function sizes(R) {
    var note = $("mw-sizes-note"), section = $("mw-sizes-section");
    var buckets = {}, perFn = {}, totals = {};
    entries(R.functions).forEach(function (e) {
      var f = obj(e[1]);
      if (!f) return;
      arr(f.sizes).forEach(function (s) {
        s = arr(s);
        var lo = num(s[0]), hi = num(s[1]), calls = num(s[2]);
        if (calls <= 0) return;
        var key = lo + ":" + hi;
        buckets[key] = [lo, hi];
        if (!perFn[e[0]]) { perFn[e[0]] = {}; totals[e[0]] = 0; }
        perFn[e[0]][key] = (perFn[e[0]][key] || 0) + calls;
        totals[e[0]] += calls;
      });
    });
    var keys = Object.keys(buckets).sort(function (a, b) {
      return buckets[a][0] - buckets[b][0] || buckets[a][1] - buckets[b][1];
    });
    section.setAttribute("data-mw-buckets", String(keys.length));
    $("mw-sizes-chart").hidden = !keys.length;
    if (!keys.length) {
      note.textContent = R.live ? "Message sizes come with the report at MPI_Finalize, not live." : "No call moved a message.";
      return;
    }
    note.textContent = "Calls by the size of the message they moved (bytes sent, or received if none were sent), " +
                       "in power-of-two ranges, stacked by function.";
    var keep = topSeries(totals);
    var datasets = keep.map(function (name, i) {
      return { label: name, backgroundColor: COLORS[i % COLORS.length],
               data: keys.map(function (k) { return perFn[name][k] || 0; }) };
    });
    var other = Object.keys(perFn).filter(function (k) { return keep.indexOf(k) < 0; });
    if (other.length)
      datasets.push({ label: "other (" + other.length + " functions)", backgroundColor: COLORS[COLORS.length - 1],
                      data: keys.map(function (k) {
                        return other.reduce(function (s, name) { return s + (perFn[name][k] || 0); }, 0);
                      }) });
    if (!chartOk()) { fail("the chart library is missing from this page"); return; }
    newChart($("mw-sizes-chart"), {
      type: "bar",
      data: { labels: keys.map(function (k) { return sizeLabel(buckets[k][0], buckets[k][1]); }), datasets: datasets },
      options: { scales: { x: { stacked: true, title: { display: true, text: "message size" } },
                           y: { stacked: true, title: { display: true, text: "calls" } } } }
    });
  }

  /* ---------------------------------------------------------------- regions, sites, counters */
  function regions(R) {
    var rows = entries(R.regions).map(function (e) { return { name: e[0], g: obj(e[1]) || {} }; });
    var note = $("mw-regions-note");
    if (!rows.length) {
      note.textContent = "No region was marked (mpiwatch_region_begin and mpiwatch_region_end, see the README).";
      return;
    }
    note.textContent = "MPI time inside each named region: summed over the ranks, and the most of one rank.";
    function sub(g, a, b) { var o = obj(g[a]); return o ? num(o[b]) : 0; }
    table($("mw-regions"), [
      { title: "region", get: function (r) { return r.name; } },
      { title: "ranks", num: true, get: function (r) { return num(r.g.ranks); }, fmt: fmtCount },
      { title: "entries", num: true, get: function (r) { return num(r.g.entries); }, fmt: fmtCount },
      { title: "MPI calls", num: true, get: function (r) { return num(r.g.calls); }, fmt: fmtCount },
      { title: "wall time (sum)", num: true, get: function (r) { return sub(r.g, "wall", "sum"); }, fmt: fmtTime },
      { title: "wall time (most of a rank)", num: true, get: function (r) { return sub(r.g, "wall", "max"); }, fmt: fmtTime },
      { title: "MPI time (sum)", num: true, get: function (r) { return sub(r.g, "mpi", "sum"); }, fmt: fmtTime },
      { title: "MPI time (most of a rank)", num: true, get: function (r) { return sub(r.g, "mpi", "max"); }, fmt: fmtTime }
    ], rows, 6, note);
  }

  function sites(R) {
    var cs = obj(R.callsites), note = $("mw-sites-note");
    var rows = cs ? arr(cs.sites).map(function (s) { return obj(s) || {}; }) : [];
    if (!cs) { note.textContent = "The report has no call sites."; return; }
    note.textContent = "Where in the code the MPI time goes (resolved with " + str(cs.resolver) + "). " +
      (num(cs.other_calls) > 0 ? fmtCount(cs.other_calls) + " calls were kept by function only. " : "");
    function where(s) {
      var file = str(s.file);
      return file ? file + ":" + int(s.line) : str(s.module) + "+" + str(s.offset);
    }
    table($("mw-sites"), [
      { title: "function", get: function (s) { return str(s.function); } },
      { title: "location", get: where },
      { title: "caller", get: function (s) { return str(s.caller); } },
      { title: "ranks", num: true, get: function (s) { return num(s.ranks); }, fmt: fmtCount },
      { title: "calls", num: true, get: function (s) { return num(s.calls); }, fmt: fmtCount },
      { title: "time", num: true, get: function (s) { return num(s.time); }, fmt: fmtTime },
      { title: "least rank (rank)", num: true, get: rankStat("rank_time", "min"), fmt: withRank("rank_time", "min", "min_rank") },
      { title: "most rank (rank)", num: true, get: rankStat("rank_time", "max"), fmt: withRank("rank_time", "max", "max_rank") },
      { title: "bytes sent", num: true, get: function (s) { return num(s.bytes_sent); }, fmt: fmtBytes },
      { title: "bytes received", num: true, get: function (s) { return num(s.bytes_recv); }, fmt: fmtBytes }
    ], rows, 5, note);
  }

  /* The wait states at MPI_Finalize (docs/wait-states.md): the causes, largest first. */
  function waits(R) {
    var W = obj(R.waits);
    if (!W) return;
    $("mw-waits-section").hidden = false;
    var rows = arr(W.causes).map(function (c, k) { return Object.assign({ _index: k }, obj(c) || {}); });
    $("mw-waits-note").textContent = "Of " + fmtTime(num(W.mpi_time)) + " of MPI time (all ranks), " +
      fmtTime(num(W.waiting)) + " (" + fmtPct(num(W.waiting_share) / 100) + ") was waiting for a rank that " +
      "arrived late, " + fmtTime(num(W.direct)) + " (" + fmtPct(num(W.direct_share) / 100) + ") of it direct: " +
      "the late ranks' extra work (the rest propagated: they left their previous MPI call late). Each cause: the rank that arrived late, where, and the call before it (the work between " +
      "the two made it late), with the waiting it caused in all ranks. Analysed at MPI_Finalize in " +
      fmtTime(num(W.analysis_seconds)) + " (the slowest rank); sites: " + str(W.sites) + ".";
    table($("mw-waits"), [
      { title: "caused", num: true, get: function (c) { return num(c.waiting); }, fmt: fmtTime },
      { title: "share of MPI time", num: true, get: function (c) { return num(c.share) / 100; }, fmt: fmtPct },
      { title: "direct", num: true, get: function (c) { return num(c.direct); }, fmt: fmtTime },
      { title: "rank", num: true, get: function (c) { return int(c.rank); }, fmt: String },
      { title: "pattern", get: function (c) { return str(c.pattern); } },
      { title: "arrived late at", get: function (c) { return str(c.site) + " (" + str(c.function) + ")"; } },
      { title: "after the work since", get: function (c) {
          var a = obj(c.after);
          return a ? str(a.site) + " (" + str(a.function) + ")" : "the start";
        } },
      { title: "wait states", num: true, get: function (c) { return num(c.instances); }, fmt: fmtCount },
      { title: "ranks that waited", num: true, get: function (c) { return num(c.waiting_ranks); }, fmt: fmtCount }
    ], rows, 2, $("mw-waits-note"), function (tr, c) {   /* by direct waiting first, as the report lists them */
      tr.setAttribute("data-cause", c._index);
      tr.addEventListener("click", function () { if (timelineModel) timelineModel.choose(c._index, tr); });
    });
  }

  /* The timeline of the run (docs/wait-states.md, "The timeline in the
   * report"): in the page only, when the trace was on; drawn by timeline.js. */
  var timelineModel = null;
  function timeline(R) {
    var T = obj(R.timeline), W = obj(R.waits);
    if (!T || !W || typeof window.mwTimelineMount !== "function") return;
    $("tl-section").hidden = false;
    timelineModel = window.mwTimelineMount(T, W, { standalone: false, ranks: "MPIWATCH_TIMELINE_RANKS",
      table: "above (Waiting, and what caused it)",
      choose: "Set MPIWATCH_TIMELINE_RANKS and MPIWATCH_TIMELINE_WINDOW for another part, or draw any part of the trace with mpiwatch --trace DIR --html" });
    $("mw-waits").classList.add("jumps");
    $("mw-waits-note").textContent += " Click a row: the timeline below shows its next wait state.";
  }

  function counters(R) {
    var rows = entries(R.counters).map(function (e) { return { name: e[0], c: obj(e[1]) || {} }; });
    if (!rows.length) return;
    $("mw-counters-section").hidden = false;
    table($("mw-counters"), [
      { title: "counter", get: function (r) { return r.name; } },
      { title: "sum", num: true, get: function (r) { return num(r.c.sum); }, fmt: fmtCount },
      { title: "ranks", num: true, get: function (r) { return num(r.c.ranks); }, fmt: fmtCount },
      { title: "least (rank)", num: true, get: function (r) { return num(r.c.min); },
        fmt: function (v, r) { return fmtCount(v) + " (" + int(r.c.min_rank) + ")"; } },
      { title: "most (rank)", num: true, get: function (r) { return num(r.c.max); },
        fmt: function (v, r) { return fmtCount(v) + " (" + int(r.c.max_rank) + ")"; } }
    ], rows, 1, null);
  }

  /* ---------------------------------------------------------------- live */
  var history = [];          /* [{t, calls, share, sent}] of the states received so far */
  var MAX_HISTORY = 600;

  function liveSection(R) {
    var L = obj(R.live);
    var section = $("mw-live-section");
    if (!L) { section.hidden = true; return; }
    section.hidden = false;
    var rates = obj(L.rates) || {};
    var t = num(L.elapsed);
    if (!history.length || t > history[history.length - 1].t)
      history.push({ t: t, calls: num(rates.calls), share: num(rates.mpi_share), sent: num(rates.sent) });
    if (history.length > MAX_HISTORY) history.shift();
    var totalCalls = 0;
    entries(R.functions).forEach(function (e) { var f = obj(e[1]); if (f) totalCalls += num(f.calls); });
    $("mw-live-status").textContent = (L.recording ? "the recording's last state: " : "watching for " + t.toFixed(1) + " s: ") + int(L.attached) + " ranks attached, " +
      int(L.finished) + " finished, " + int(L.lost) + " lost, " + int(L.waiting) + " waiting; " +
      fmtCount(totalCalls) + " MPI calls so far; now " + fmtCount(Math.round(num(rates.calls))) + " calls/s, " +
      fmtBytes(num(rates.sent)) + "/s sent.";
    section.setAttribute("data-mw-live-elapsed", t.toFixed(3));
    if (firstCalls < 0) firstCalls = totalCalls;
    if (transport) $("mw-live-status").textContent += transport === "stream" ?
      " Updated by mpiwatch's stream as it publishes." : " Asked for every second (no stream).";
    section.setAttribute("data-mw-live-calls", String(totalCalls));
    section.setAttribute("data-mw-live-calls-first", String(firstCalls));
    section.setAttribute("data-mw-live-transport", transport);
    section.setAttribute("data-mw-live-events", String(events));
    section.setAttribute("data-mw-live-polls", String(polls));
    if (chartOk()) newChart($("mw-live-chart"), {
      type: "line",
      data: { labels: history.map(function (h) { return h.t.toFixed(1); }),
              datasets: [{ label: "calls/s (all ranks)", data: history.map(function (h) { return h.calls; }),
                           borderColor: COLORS[0], backgroundColor: COLORS[0], yAxisID: "y", pointRadius: 0 },
                         { label: "MPI share of the time (sum over ranks)", data: history.map(function (h) { return h.share; }),
                           borderColor: COLORS[1], backgroundColor: COLORS[1], yAxisID: "y1", pointRadius: 0 }] },
      options: { scales: { x: { title: { display: true, text: "seconds into the watch" } },
                           y: { position: "left", beginAtZero: true },
                           y1: { position: "right", beginAtZero: true, grid: { drawOnChartArea: false } } } }
    });
    var calls = arr(L.inflight).map(function (c) { return obj(c) || {}; });
    var stuck = calls.filter(function (c) { return c.stuck === true; }).length;
    $("mw-inflight-note").textContent = calls.length ? calls.length + " calls in progress; " + stuck +
      " stuck (inside one call for more than " + num(L.stuck_after) + " s)." : "No rank is inside an MPI call.";
    section.setAttribute("data-mw-stuck", String(stuck));
    function opt(k) { return function (c) { return typeof c[k] === "number" ? c[k] : -1; }; }
    function optFmt(v) { return v < 0 ? "" : String(v); }
    table($("mw-inflight"), [
      { title: "rank", num: true, get: function (c) { return int(c.rank); } },
      { title: "thread", num: true, get: function (c) { return int(c.thread); } },
      { title: "function", get: function (c) { return str(c.function); } },
      { title: "for", num: true, get: function (c) { return num(c.seconds); }, fmt: function (v) { return v.toFixed(1) + " s"; } },
      { title: "peer", num: true, get: opt("peer"), fmt: optFmt },
      { title: "tag", num: true, get: opt("tag"), fmt: optFmt },
      { title: "root", num: true, get: opt("root"), fmt: optFmt },
      { title: "stuck", get: function (c) { return c.stuck === true ? "stuck" : ""; } }
    ], calls, 3, null);
    Array.prototype.slice.call($("mw-inflight").rows).forEach(function (tr) {
      if (tr.cells.length && tr.cells[tr.cells.length - 1].textContent === "stuck") tr.className = "stuck";
    });
    waitingList(obj(L.wait_for));
  }

  /* Who waits for whom, as the terminal's Waiting panel says it: the cycles
   * (deadlock) first, then the ranks others wait for, most waiters first
   * (at most 20 lines; the state holds them all). */
  function waitingList(W) {
    var ul = $("mw-waiting"), section = $("mw-live-section");
    while (ul.firstChild) ul.removeChild(ul.firstChild);
    var cycles = W ? arr(W.cycles).map(function (c) { return arr(c).map(int); }) : [];
    var waited = W ? arr(W.waited_on).map(function (w) { return obj(w) || {}; }) : [];
    var lines = [];
    cycles.forEach(function (c) {
      lines.push({ cls: "deadlock", text: "Deadlock: ranks " + c.join(", ") + " wait for each other." });
    });
    waited.forEach(function (w) {
      var who = arr(w.waiters).map(int);
      lines.push({ cls: "", text: "Rank " + int(w.rank) + " is waited for by " + who.length +
                   (who.length === 1 ? " rank: " : " ranks: ") + who.join(", ") + "." });
    });
    lines.slice(0, 20).forEach(function (l) {
      var li = document.createElement("li");
      li.textContent = l.text;
      if (l.cls) li.className = l.cls;
      ul.appendChild(li);
    });
    if (lines.length > 20) {
      var more = document.createElement("li");
      more.textContent = "... " + (lines.length - 20) + " more.";
      ul.appendChild(more);
    }
    ul.hidden = lines.length === 0;
    section.setAttribute("data-mw-cycles", cycles.map(function (c) { return c.join(" "); }).join(";"));
    section.setAttribute("data-mw-waited-on", waited.map(function (w) {
      return int(w.rank) + ":" + arr(w.waiters).map(int).join(" ");
    }).join(";"));
  }

  /* How the state arrives: "stream" (/api/stream, Server-Sent Events: each
   * state as mpiwatch publishes it) or "poll" (/api/state every second) when
   * the browser has no EventSource or the server refused the stream (503
   * when too many are open). */
  var transport = "", events = 0, polls = 0, failures = 0, firstCalls = -1;
  function stream() {
    if (!window.EventSource) { poll(); return; }
    transport = "stream";
    var es = new window.EventSource("api/stream");
    es.onmessage = function (ev) {
      var R;
      try { R = JSON.parse(ev.data); } catch (e) { fail("the stream sent a state that is not JSON: " + e.message); return; }
      events++;
      render(R);
    };
    es.onerror = function () {
      if (es.readyState === window.EventSource.CLOSED) {
        /* refused, not merely broken (the browser reconnects by itself then) */
        es.close();
        poll();
        return;
      }
      $("mw-live-status").textContent = "the stream from mpiwatch broke (it has probably ended): " +
        "showing the last state; reconnecting.";
    };
  }

  function poll() {
    transport = "poll";
    if (!window.fetch) { fail("this browser has no fetch(): the live page cannot ask for the state"); return; }
    window.fetch("api/state", { cache: "no-store" }).then(function (r) {
      if (!r.ok) throw new Error("HTTP " + r.status);
      return r.json();
    }).then(function (R) {
      polls++;
      failures = 0;
      render(R);
      setTimeout(poll, 1000);
    }).catch(function (e) {
      failures++;
      $("mw-live-status").textContent = "mpiwatch does not answer (" + (e && e.message ? e.message : e) +
        "): it has probably ended. Showing the last state; trying again.";
      setTimeout(poll, Math.min(10000, 1000 * failures));
    });
  }

  /* ---------------------------------------------------------------- all */
  function render(R) {
    var t0 = window.performance ? performance.now() : Date.now();
    charts.forEach(function (c) { c.destroy(); });
    charts = [];
    R = obj(R);
    if (!R) { fail("the report is not a JSON object"); return; }
    if (R.schema !== SCHEMA) {
      fail("the report's schema is '" + str(R.schema) + "', not " + SCHEMA);
      return;
    }
    var parts = [header, liveSection, perRank, functionsTable, matrix, sizes, regions, sites, waits, timeline, counters];
    parts.forEach(function (part) {
      try { part(R); } catch (e) { fail(part.name + ": " + (e && e.message ? e.message : String(e))); }
    });
    var ms = (window.performance ? performance.now() : Date.now()) - t0;
    var root = document.documentElement;
    root.setAttribute("data-mw-render-ms", ms.toFixed(1));
    if (window.performance) root.setAttribute("data-mw-loaded-ms", performance.now().toFixed(1));
    if (chartOk() && window.Chart.version) root.setAttribute("data-mw-chartjs", str(window.Chart.version));
    if (!root.hasAttribute("data-mw-error")) root.setAttribute("data-mw-status", "ok");
  }
  window.mwRender = render;

  var node = document.getElementById("mw-data");
  var text = node ? node.textContent : "";
  if (/\S/.test(text)) {
    var R;
    try { R = JSON.parse(text); } catch (e) { fail("the report in this page is not valid JSON: " + e.message); }
    if (R !== undefined) render(R);
  } else if (/^https?:$/.test(window.location.protocol)) {
    document.documentElement.setAttribute("data-mw-live", "1");
    $("mw-live-section").hidden = false;
    $("mw-live-status").textContent = "asking mpiwatch for the job's state...";
    stream();
  } else {
    fail("this page holds no report");
  }
})();
