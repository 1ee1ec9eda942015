/* The timeline (docs/wait-states.md, "The timeline"): each rank's MPI calls
 * as spans on a canvas, the messages the wait-state analysis matched as
 * lines from the send's entry to the receive's exit, its wait states in
 * red; a click on a cause's row shows its next wait state. Two pages draw
 * it: the timeline page (mpiwatch --trace DIR --html, timeline.html: with
 * its header and its own table of causes) and the HTML report written at
 * MPI_Finalize (viewer.html's section "Timeline", whose table of causes is
 * the report's). window.mwTimelineMount(data, analysis, page) draws it
 * (page.standalone: the timeline page; page.choose: how to choose another
 * part); what was drawn last is window.mwTimeline.drawn (the tests read it). */
window.mwTimelineMount = function (data, analysis, page) {
  "use strict";
  var ROW = 30, GUTTER = 72, AXIS = 26, TOP = 6;
  var CATEGORIES = [
    ["collective", "#4f7fd0", /^MPI_I?(Barrier|Bcast|Reduce|Allreduce|Allgather|Alltoall|Gather|Scatter|Scan|Exscan|Neighbor)/],
    ["completion (wait, test)", "#a3a3a3", /^MPI_(Wait|Test)/],
    ["point-to-point", "#3aa06b", /^MPI_(I|B|S|R|Ib|Is|Ir)?(send|recv|sendrecv)|^MPI_(Sendrecv|Probe|Iprobe|Mprobe|Improbe|Mrecv|Imrecv|Start)/i],
    ["one-sided", "#e08a2c", /^MPI_(Put|Get|Rput|Rget|Accumulate|Raccumulate|Get_accumulate|Fetch_and_op|Compare_and_swap|Win_)/],
    ["I/O", "#9063c6", /^MPI_File_/],
    ["other", "#d9d2b6", /./]
  ];
  var WAIT_COLOUR = "rgba(214, 32, 32, 0.9)";

  function $(id) { return document.getElementById(id); }
  function text(tag, s, cls) {
    var e = document.createElement(tag);
    e.textContent = s;
    if (cls) { e.className = cls; }
    return e;
  }
  function seconds(s) {
    var a = Math.abs(s);
    if (a >= 1 || a === 0) { return s.toFixed(3) + " s"; }
    if (a >= 1e-3) { return (s * 1e3).toFixed(3) + " ms"; }
    return (s * 1e6).toFixed(1) + " \u00b5s";
  }

  var category = data.functions.map(function (name) {
    for (var i = 0; i < CATEGORIES.length; i++) {
      if (CATEGORIES[i][2].test(name)) { return i; }
    }
    return CATEGORIES.length - 1;
  });
  var rowOf = {};
  data.rows.forEach(function (r, i) { rowOf[r.rank] = i; });
  /* each cause's wait states on this page, by start */
  var waitsOf = analysis.causes.map(function () { return []; });
  data.waits.forEach(function (w, i) { if (waitsOf[w[5]]) { waitsOf[w[5]].push(i); } });
  waitsOf.forEach(function (l) { l.sort(function (a, b) { return data.waits[a][1] - data.waits[b][1]; }); });

  var model = {
    data: data,
    view: { start: data.window[0], end: data.window[1] > data.window[0] ? data.window[1] : data.window[0] + 1e-3 },
    focus: -1,
    next: analysis.causes.map(function () { return 0; }),
    drawn: null,
    show: show,
    draw: draw,
    choose: choose
  };
  window.mwTimeline = model;

  var canvas = $("tl-canvas");
  function width() { return Math.max(300, canvas.clientWidth || 1000); }
  function xOf(t, w) { return GUTTER + (t - model.view.start) / (model.view.end - model.view.start) * (w - GUTTER); }
  function tOf(x, w) { return model.view.start + (x - GUTTER) / (w - GUTTER) * (model.view.end - model.view.start); }
  function yOf(rank) { return TOP + rowOf[rank] * ROW; }

  function ticks(span) {
    var step = Math.pow(10, Math.floor(Math.log10(span / 8)));
    if (span / step > 40) { step *= 5; } else if (span / step > 16) { step *= 2; }
    return step;
  }

  /* An axis label: in the unit of the step, with as many decimals as it needs. */
  function tick(t, step) {
    var unit = step >= 0.1 ? [1, " s"] : step >= 1e-4 ? [1e-3, " ms"] : [1e-6, " \u00b5s"];
    var decimals = Math.max(0, Math.min(6, -Math.floor(Math.log10(step / unit[0]) + 1e-9)));
    return (t / unit[0]).toFixed(decimals) + unit[1];
  }

  function draw() {
    var w = width(), h = TOP + data.rows.length * ROW + AXIS, ratio = window.devicePixelRatio || 1;
    canvas.width = Math.round(w * ratio);
    canvas.height = Math.round(h * ratio);
    canvas.style.height = h + "px";
    var g = canvas.getContext("2d");
    g.setTransform(ratio, 0, 0, ratio, 0, 0);
    g.clearRect(0, 0, w, h);
    var drawn = { width: w, left: GUTTER, view: { start: model.view.start, end: model.view.end }, rows: [],
                  calls: 0, messages: [], waits: [], focus: model.focus };
    g.font = "12px system-ui, sans-serif";
    g.textBaseline = "middle";
    var v0 = model.view.start, v1 = model.view.end;
    data.rows.forEach(function (r) {
      var y = yOf(r.rank);
      g.fillStyle = "#f4f5f7";
      g.fillRect(GUTTER, y + 2, w - GUTTER, ROW - 4);
      g.fillStyle = "#333";
      g.fillText("rank " + r.rank, 6, y + ROW / 2);
      drawn.rows.push({ rank: r.rank, y: y, height: ROW });
      /* calls: a pixel already filled with the same colour is not filled again */
      var c = r.calls, lastX = -1, lastCat = -1;
      for (var i = 0; i < c.length; i += 3) {
        if (c[i + 2] < v0 || c[i + 1] > v1) { continue; }
        var x0 = Math.max(GUTTER, xOf(c[i + 1], w)), x1 = Math.min(w, xOf(c[i + 2], w));
        var cat = category[c[i]];
        if (Math.floor(x1) === lastX && cat === lastCat && x1 - x0 < 1) { continue; }
        g.fillStyle = CATEGORIES[cat][1];
        g.fillRect(x0, y + 4, Math.max(1, x1 - x0), ROW - 8);
        lastX = Math.floor(x1);
        lastCat = cat;
        drawn.calls++;
      }
    });
    data.waits.forEach(function (wt, i) {
      if (wt[2] < v0 || wt[1] > v1 || rowOf[wt[0]] === undefined) { return; }
      var y = yOf(wt[0]), x0 = Math.max(GUTTER, xOf(wt[1], w)), x1 = Math.min(w, xOf(wt[2], w));
      g.fillStyle = WAIT_COLOUR;
      g.fillRect(x0, y + ROW / 2, Math.max(1, x1 - x0), ROW / 2 - 4);
      if (i === model.focus) {
        g.strokeStyle = "#000";
        g.lineWidth = 2;
        g.strokeRect(x0 - 2, y + 1, Math.max(1, x1 - x0) + 4, ROW - 2);
      }
      drawn.waits.push({ index: i, rank: wt[0], start: wt[1], end: wt[2], pattern: wt[3],
                         late_rank: wt[4], cause: wt[5], x0: x0, x1: x1, y: y + ROW / 2 });
    });
    g.strokeStyle = "rgba(0, 0, 0, 0.75)";
    g.lineWidth = 1;
    g.beginPath();
    data.messages.forEach(function (m) {
      if (Math.max(m[1], m[3]) < v0 || Math.min(m[1], m[3]) > v1) { return; }
      var xa = xOf(m[1], w), ya = yOf(m[0]) + ROW / 2, xb = xOf(m[3], w), yb = yOf(m[2]) + ROW / 2;
      g.moveTo(xa, ya);
      g.lineTo(xb, yb);
      drawn.messages.push({ from: { rank: m[0], t: m[1], x: xa, y: ya }, to: { rank: m[2], t: m[3], x: xb, y: yb } });
    });
    g.save();
    g.beginPath();
    g.rect(GUTTER, 0, w - GUTTER, h);
    g.clip();
    g.stroke();
    g.restore();
    /* the axis */
    var ya = TOP + data.rows.length * ROW, step = ticks(v1 - v0);
    g.fillStyle = "#555";
    g.strokeStyle = "#bbb";
    g.textAlign = "center";
    for (var t = Math.ceil(v0 / step) * step; t <= v1; t += step) {
      var x = xOf(t, w);
      if (x > w - 30) { break; }   /* no label cut at the right edge */
      g.beginPath();
      g.moveTo(x, ya);
      g.lineTo(x, ya + 5);
      g.stroke();
      g.fillText(tick(t, step), x, ya + 15);
    }
    g.textAlign = "start";
    model.drawn = drawn;
    document.documentElement.setAttribute("data-tl-view", v0 + ":" + v1);
    return drawn;
  }

  /* The view to a wait state (an index into data.waits), with room around it. */
  function show(i) {
    var wt = data.waits[i], span = Math.max(wt[2] - wt[1], 1e-6);
    model.focus = i;
    model.view = { start: wt[1] - span, end: wt[2] + span };
    draw();
  }

  /* ------------------------------------------------------------ interaction */
  var drag = null;
  canvas.addEventListener("wheel", function (e) {
    e.preventDefault();
    var w = width(), rect = canvas.getBoundingClientRect(), at = tOf(e.clientX - rect.left, w);
    var f = Math.pow(1.0015, e.deltaY), span = (model.view.end - model.view.start) * f;
    span = Math.max(span, 1e-7);
    var left = (at - model.view.start) / (model.view.end - model.view.start);
    model.view = { start: at - left * span, end: at - left * span + span };
    draw();
  }, { passive: false });
  canvas.addEventListener("pointerdown", function (e) {
    drag = { x: e.clientX, start: model.view.start, end: model.view.end };
    canvas.classList.add("dragging");
    try { canvas.setPointerCapture(e.pointerId); } catch (err) { /* a pointer already gone */ }
  });
  canvas.addEventListener("pointermove", function (e) {
    var w = width();
    if (drag) {
      var dt = (e.clientX - drag.x) / (w - GUTTER) * (drag.end - drag.start);
      model.view = { start: drag.start - dt, end: drag.end - dt };
      draw();
      return;
    }
    tip(e, w);
  });
  function release() { drag = null; canvas.classList.remove("dragging"); }
  canvas.addEventListener("pointerup", release);
  canvas.addEventListener("pointercancel", release);
  canvas.addEventListener("dblclick", function () {
    model.view = { start: data.window[0], end: Math.max(data.window[1], data.window[0] + 1e-3) };
    draw();
  });

  /* The call under the pointer, named in the tip line. */
  function tip(e, w) {
    var rect = canvas.getBoundingClientRect(), x = e.clientX - rect.left, y = e.clientY - rect.top;
    var row = Math.floor((y - TOP) / ROW), out = $("tl-tip");
    if (row < 0 || row >= data.rows.length || x < GUTTER) { return; }
    var t = tOf(x, w), slack = 2 / (w - GUTTER) * (model.view.end - model.view.start), c = data.rows[row].calls;
    for (var i = 0; i < c.length; i += 3) {
      if (c[i + 1] - slack <= t && t <= c[i + 2] + slack) {
        out.textContent = "rank " + data.rows[row].rank + ": " + data.functions[c[i]] + " from " +
          seconds(c[i + 1]) + " for " + seconds(c[i + 2] - c[i + 1]);
        return;
      }
    }
    out.textContent = "rank " + data.rows[row].rank + " at " + seconds(t);
  }

  /* ------------------------------------------------------------ the rest of the page */
  /* The timeline page's header. */
  function meta() {
    var dl = $("mw-meta");
    [["trace", data.trace], ["ranks", data.rows.length + " of " + data.ranks],
     ["window", seconds(data.window[0]) + " to " + seconds(data.window[1]) + " after the first call"],
     ["waiting", seconds(analysis.waiting) + " of " + seconds(analysis.mpi_time) + " of MPI time (" +
      analysis.waiting_share.toFixed(1) + "%)"],
     ["sites", analysis.sites]].forEach(function (kv) {
      dl.appendChild(text("dt", kv[0]));
      dl.appendChild(text("dd", kv[1]));
    });
  }

  /* What the page left out, and the legend. */
  function notes() {
    var lo = data.left_out, said = [];
    if (lo.ranks) { said.push(lo.ranks + " rank" + (lo.ranks === 1 ? "" : "s") + " (" + page.ranks + ")"); }
    if (lo.calls) { said.push(lo.calls + " calls"); }
    if (lo.messages) { said.push(lo.messages + " messages"); }
    if (lo.waits) { said.push(lo.waits + " wait states"); }
    $("tl-left-out").textContent = said.length ?
      "Left out of this page: " + said.join(", ") + (lo.limited ? "; the page holds at most " + lo.limit +
      " calls, the first ones from the window's start" : "") +
      ". " + page.choose + "; the table " + page.table + " covers the whole trace." :
      "The page holds the whole trace.";
    $("tl-legend").textContent = "";
    CATEGORIES.forEach(function (c) {
      var s = document.createElement("span"), i = document.createElement("i");
      i.style.background = c[1];
      s.appendChild(i);
      s.appendChild(document.createTextNode(c[0]));
      $("tl-legend").appendChild(s);
    });
    var s = document.createElement("span"), i = document.createElement("i");
    i.style.background = WAIT_COLOUR;
    s.appendChild(i);
    s.appendChild(document.createTextNode("waiting (lower half of the call)"));
    $("tl-legend").appendChild(s);
    $("tl-legend").appendChild(text("span", "\u2014 message, from the send's entry to the receive's exit"));
  }

  function table() {
    var t = $("tl-waits"), head = document.createElement("tr");
    ["caused", "share", "rank", "pattern", "arrived late at", "after the work since", "wait states (on this page)"]
      .forEach(function (h) { head.appendChild(text("th", h)); });
    var thead = document.createElement("thead"), tbody = document.createElement("tbody");
    thead.appendChild(head);
    analysis.causes.forEach(function (c, k) {
      var tr = document.createElement("tr");
      tr.appendChild(text("td", seconds(c.waiting), "num"));
      tr.appendChild(text("td", c.share.toFixed(1) + "%", "num"));
      tr.appendChild(text("td", String(c.rank), "num"));
      tr.appendChild(text("td", data.patterns[data.pattern_keys.indexOf(c.pattern)] || c.pattern));
      tr.appendChild(text("td", c.site + " (" + c.function + ")"));
      tr.appendChild(text("td", c.after ? c.after.site + " (" + c.after.function + ")" : "the start"));
      tr.appendChild(text("td", c.instances + " of " + c.waiting_ranks + " rank" + (c.waiting_ranks === 1 ? "" : "s") +
        " (" + waitsOf[k].length + ")", "num"));
      tr.setAttribute("data-cause", k);
      tr.addEventListener("click", function () { choose(k, tr); });
      tbody.appendChild(tr);
    });
    t.appendChild(thead);
    t.appendChild(tbody);
    $("tl-waits-note").textContent = analysis.causes.length ?
      "The causes of all waiting in the trace, largest first (as mpiwatch --trace DIR --analyze --json). " +
      "Click a row: the timeline shows its next wait state on this page." :
      "No wait states: no rank waited for another in a matched call.";
  }

  /* Cause k's next wait state on the page, its row tr marked. */
  function choose(k, tr) {
    var rows = tr.parentNode ? tr.parentNode.querySelectorAll("tr") : [];
    for (var i = 0; i < rows.length; i++) { rows[i].classList.remove("chosen"); }
    tr.classList.add("chosen");
    var list = waitsOf[k];
    if (!list.length) {
      $("tl-tip").textContent = "None of this cause's wait states is in this page's part of the trace.";
      return;
    }
    var i = list[model.next[k] % list.length];
    model.next[k]++;
    show(i);
    var wt = data.waits[i];
    $("tl-tip").textContent = "rank " + wt[0] + " waited " + seconds(wt[2] - wt[1]) + " from " + seconds(wt[1]) +
      " (" + data.patterns[wt[3]] + ") for rank " + wt[4] + "; click again for the next of " + list.length;
    $("tl-section").scrollIntoView();
  }

  if (page.standalone) {
    meta();
    table();
  }
  notes();
  draw();
  window.addEventListener("resize", draw);
  return model;
};
