// Draws the Arbiter timeline report from the JSON in #report-data with Apache ECharts (inlined above this script).
// Amounts arrive in the resource's own unit (GPUs, cores; bytes for byte-valued resources) and are shown as
// Kubernetes quantities (16, 10.6, 1.5Gi). Every chart shares one category axis: a slot per cycle that changed
// something, and one grey "idle" slot per collapsed stretch in which nothing changed.
(function () {
  'use strict';
  var data = JSON.parse(document.getElementById('report-data').textContent);

  // Twenty colours that read on white, paired with seven marker shapes: queue i gets colour i mod 20 and shape
  // i mod 7, so the first 140 queues all differ in colour or shape (and usually both).
  var PALETTE = ['#1f6feb', '#e8710a', '#1a7f37', '#a40e26', '#8250df', '#7d4e24', '#d63384', '#57606a', '#7a9a01',
    '#0e8a9e', '#f2b705', '#3b1c8c', '#e15d44', '#2da44e', '#9e6a03', '#54aeff', '#bf3989', '#0a3069', '#b08800',
    '#6e7781'];
  var SYMBOLS = ['circle', 'rect', 'triangle', 'diamond', 'roundRect', 'pin', 'arrow'];
  var PHASES = {Pending: '#d4a72c', Inqueue: '#54aeff', Running: '#2da44e', Completed: '#8c959f', Unknown: '#cf222e'};
  var BINARY = ['', 'Ki', 'Mi', 'Gi', 'Ti', 'Pi', 'Ei'];

  var queues = data.queues;
  var slots = data.slots;
  var labels = slots.map(function (s) { return s.label; });
  var charts = [];

  function colour(i) { return PALETTE[i % PALETTE.length]; }
  function symbol(i) { return SYMBOLS[i % SYMBOLS.length]; }

  /** An amount as a Kubernetes quantity, as Quantity.human does: 16, 10.6, 0.25, 5m; 96Gi, 1.5Gi, 512. */
  function human(resource, v) {
    if (v === null || v === undefined) return '-';
    if (resource.bytes) {
      var k = 0;
      while (k + 1 < BINARY.length && Math.abs(v) >= Math.pow(1024, k + 1)) k++;
      var x = v / Math.pow(1024, k);
      return (Number.isInteger(x) ? String(x) : String(Math.round(x * 10) / 10)) + BINARY[k];
    }
    if (Number.isInteger(v)) return String(v);
    var a = Math.abs(v);
    if (a < 0.01) return Math.round(v * 1000) + 'm';
    return String(a >= 10 ? Math.round(v * 10) / 10 : Math.round(v * 100) / 100);
  }

  /** The binary unit an axis of this resource counts in (bytes only), so its ticks read 64Gi, 128Gi... */
  function axisUnit(resource) {
    if (!resource.bytes) return {scale: 1, suffix: ''};
    var max = 0;
    queues.forEach(function (q) {
      resource.allocated[q].concat(resource.deserved[q]).forEach(function (v) { if (v > max) max = v; });
    });
    var k = 0;
    while (k + 1 < BINARY.length && max >= Math.pow(1024, k + 1)) k++;
    return {scale: Math.pow(1024, k), suffix: BINARY[k]};
  }

  function scaled(values, unit) {
    return values.map(function (v) { return v === null ? null : v / unit.scale; });
  }

  function tickLabel(unit) {
    return function (v) { return v === 0 ? '0' : (Math.round(v * 100) / 100) + unit.suffix; };
  }

  function slotTitle(i) {
    var s = slots[i];
    if (s.idle) return (s.from === s.to ? 'cycle ' : 'cycles ') + s.label + ': idle, nothing changed';
    return 'cycle ' + s.label;
  }

  /**
   * Grey bands over the idle slots (a custom series, so a band covers its whole slot and follows the zoom),
   * labelled "idle" when {@code withLabel}.
   */
  function idleSeries(withLabel, axes) {
    var series = {
      type: 'custom', id: 'idle', name: 'idle', silent: true, z: 0, tooltip: {show: false}, clip: true,
      encode: {x: 0, y: 1},
      data: slots.map(function (s, i) { return s.idle ? [i, 0] : null; }).filter(function (d) { return d !== null; }),
      renderItem: function (params, api) {
        var centre = api.coord([api.value(0), 0]), band = api.size([1, 0])[0], cs = params.coordSys;
        var rect = echarts.graphic.clipRectByRect({x: centre[0] - band / 2, y: cs.y, width: band, height: cs.height},
          {x: cs.x, y: cs.y, width: cs.width, height: cs.height});
        if (!rect) return null;
        var out = {type: 'rect', shape: rect, style: {fill: 'rgba(140,149,159,0.18)'}};
        if (withLabel) {
          out.textContent = {style: {text: 'idle', fill: '#6e7781', fontSize: 11, fontStyle: 'italic'}};
          out.textConfig = {position: 'insideTop', distance: 6};
        }
        return out;
      }
    };
    for (var k in axes || {}) series[k] = axes[k];
    return series;
  }

  function axisLabels() {
    return {
      hideOverlap: true, interval: slots.length <= 60 ? 0 : 'auto',
      formatter: function (value, i) { return slots[i] && slots[i].idle ? '{idle|' + value + '}' : value; },
      rich: {idle: {color: '#8c959f', fontStyle: 'italic', backgroundColor: 'rgba(140,149,159,0.16)', padding: [2, 4]}}
    };
  }

  /** The slot an axis tooltip is about (by its label: the custom idle series numbers its data otherwise). */
  function slotOf(params) {
    var p = Array.isArray(params) ? params[0] : params;
    var i = p ? labels.indexOf(p.axisValue) : -1;
    return i < 0 ? 0 : i;
  }

  function eventAt(slot) {
    for (var i = 0; i < data.events.length; i++) if (data.events[i].slot === slot) return data.events[i];
    return null;
  }

  /** Opens the decisions of a cycle (the <details id="cycle-N">) and scrolls to them. */
  function openCycle(cycle) {
    var d = document.getElementById('cycle-' + cycle);
    if (!d) return false;
    d.open = true;
    document.querySelectorAll('details.cycle.flash').forEach(function (x) { x.classList.remove('flash'); });
    d.classList.add('flash');
    d.scrollIntoView({block: 'start'});
    if (history.replaceState) history.replaceState(null, '', '#cycle-' + cycle);
    return true;
  }
  window.arbiterOpenCycle = openCycle;

  function openSlot(i) {
    var s = slots[i];
    if (s && !s.idle && s.cycle !== null) openCycle(s.cycle);
  }

  // ---- the main chart: lines per queue, and the events strip --------------------------------------------------

  var resourceIndex = 0;
  var main = echarts.init(document.getElementById('timeline'), null, {renderer: 'canvas'});
  charts.push(main);

  /**
   * A queue's allocated values where another queue holds the same amount at that slot and the next (null elsewhere,
   * so only shared stretches are drawn); null when it never shares a line.
   */
  function sharedStretches(resource, q, unit) {
    var mine = resource.allocated[q], any = false;
    function same(k) {
      if (mine[k] === null || mine[k] === undefined) return false;
      return queues.some(function (o) { return o !== q && resource.allocated[o][k] === mine[k]; });
    }
    var out = mine.map(function (v, k) {
      var on = same(k) && (same(k + 1) || k === mine.length - 1 || (k > 0 && same(k - 1)));
      if (on) any = true;
      return on ? v : null;
    });
    return any ? scaled(out, unit) : null;
  }

  function mainOption(resource) {
    var unit = axisUnit(resource);
    var many = queues.length > 12;
    var series = [];
    queues.forEach(function (q, i) {
      // Lines drawn later lie on top. With few queues, each is a little narrower than the one before, so where two
      // queues hold the same amount the one beneath still shows as a rim; with many, they are all alike.
      var width = queues.length <= 10 && queues.length > 1 ? 2 + 3 * (queues.length - 1 - i) / (queues.length - 1) : 2.2;
      series.push({
        id: 'allocated:' + q, name: q, type: 'line', step: 'end', xAxisIndex: 0, yAxisIndex: 0,
        data: scaled(resource.allocated[q], unit), color: colour(i), symbol: symbol(i), symbolSize: 7,
        showSymbol: slots.length <= 80, lineStyle: {width: width}, emphasis: {focus: 'series', lineStyle: {width: width + 1.5}},
        endLabel: {show: !many, formatter: function () { return q; }, color: colour(i), fontWeight: 600},
        labelLayout: {moveOverlap: 'shiftY'}, z: 3
      });
      series.push({
        id: 'deserved:' + q, name: q, type: 'line', step: 'end', xAxisIndex: 0, yAxisIndex: 0,
        data: scaled(resource.deserved[q], unit), color: colour(i), symbol: 'none',
        lineStyle: {width: 1.5, type: [6, 4], opacity: 0.85}, emphasis: {focus: 'series'}, z: 2
      });
    });
    // Where queues hold the same amount their lines lie on one another (tenant A and B at 16 and 16): over those
    // stretches each such queue also draws its colour in stripes, shifted by its place among the queues, so the
    // shared line reads as alternating colours and no queue hides another.
    queues.forEach(function (q, i) {
      var shared = sharedStretches(resource, q, unit);
      if (!shared) return;
      var stripe = 7, gap = stripe * (queues.length - 1);
      series.push({
        id: 'shared:' + q, name: q, type: 'line', step: 'end', xAxisIndex: 0, yAxisIndex: 0, data: shared, color: colour(i),
        symbol: 'none', silent: true, tooltip: {show: false}, connectNulls: false,
        lineStyle: {width: 3.2, type: [stripe, gap], dashOffset: stripe * i}, z: 4
      });
    });
    series.unshift(idleSeries(true, {xAxisIndex: 0, yAxisIndex: 0}));
    series.push(idleSeries(false, {id: 'idle-events', xAxisIndex: 1, yAxisIndex: 1}));
    series.push({
      id: 'bindings', name: 'bound', type: 'scatter', xAxisIndex: 1, yAxisIndex: 1, cursor: 'pointer',
      symbol: 'triangle', color: '#24292f', itemStyle: {color: '#ffffff', borderColor: '#24292f', borderWidth: 1.5},
      symbolSize: function (v) { return 9 + Math.min(12, Math.sqrt(v[2]) * 2); },
      label: {show: true, position: 'right', formatter: function (p) { return p.value[2]; }, fontSize: 11, color: '#24292f'},
      data: data.events.filter(function (e) { return e.bound > 0; }).map(function (e) { return [e.slot, 'bound', e.bound, e.cycle]; })
    });
    series.push({
      id: 'evictions', name: 'evicted', type: 'scatter', xAxisIndex: 1, yAxisIndex: 1, cursor: 'pointer',
      symbol: 'triangle', symbolRotate: 180, color: '#24292f', itemStyle: {color: '#24292f'},
      symbolSize: function (v) { return 9 + Math.min(12, Math.sqrt(v[2]) * 2); },
      label: {show: true, position: 'right', formatter: function (p) { return p.value[2]; }, fontSize: 11, color: '#24292f'},
      data: data.events.filter(function (e) { return e.evicted > 0; }).map(function (e) { return [e.slot, 'evicted', e.evicted, e.cycle]; })
    });

    var legendRight = 12, plotRight = 200;
    return {
      animation: false,
      aria: {enabled: true, label: {data: {maxCount: 0}, series: {maxCount: 100000}}},
      textStyle: {fontFamily: 'system-ui, sans-serif'},
      grid: [{left: 72, right: plotRight, top: 34, bottom: 170}, {left: 72, right: plotRight, height: 54, bottom: 72}],
      xAxis: [
        {type: 'category', gridIndex: 0, data: labels, axisLabel: {show: false}, axisTick: {alignWithLabel: true}},
        {type: 'category', gridIndex: 1, data: labels, axisLabel: axisLabels(), axisTick: {alignWithLabel: true},
          name: 'cycle', nameLocation: 'middle', nameGap: 30}
      ],
      yAxis: [
        {type: 'value', gridIndex: 0, name: resource.name + (unit.suffix ? ' (' + unit.suffix + ')' : ''),
          nameTextStyle: {align: 'left', fontWeight: 600}, splitNumber: 6, minInterval: resource.bytes ? 0 : 1,
          axisLabel: {formatter: tickLabel(unit)}},
        {type: 'category', gridIndex: 1, data: ['evicted', 'bound'], axisTick: {show: false},
          splitLine: {show: true, lineStyle: {color: '#eaeef2'}}}
      ],
      legend: {
        type: 'scroll', orient: 'vertical', right: legendRight, top: 34, bottom: 72, width: plotRight - 40,
        data: queues.map(function (q, i) { return {name: q, icon: symbol(i)}; }),
        tooltip: {show: true}, textStyle: {width: plotRight - 70, overflow: 'truncate'}, pageIconSize: 12
      },
      tooltip: {
        trigger: 'axis', confine: true, className: 'arbiter-tip', axisPointer: {type: 'line'},
        formatter: function (params) { return mainTooltip(resource, slotOf(params)); }
      },
      axisPointer: {link: [{xAxisIndex: 'all'}]},
      dataZoom: [
        {type: 'inside', xAxisIndex: [0, 1]},
        {type: 'slider', xAxisIndex: [0, 1], bottom: 12, height: 22, labelFormatter: function (v) { return labels[v]; }}
      ],
      series: series
    };
  }

  function escapeHtml(s) {
    return String(s).replace(/[&<>"']/g, function (c) {
      return {'&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;'}[c];
    });
  }

  function mainTooltip(resource, i) {
    var out = ['<b>' + escapeHtml(slotTitle(i)) + '</b>'];
    var e = eventAt(i);
    if (e) {
      out.push(e.bound + ' bound, ' + e.evicted + ' evicted' + (e.what ? ' (' + escapeHtml(e.what) + ')' : '') +
        ' <i>click the marker for the decisions</i>');
    }
    var rows = [];
    queues.forEach(function (q, qi) {
      var a = resource.allocated[q][i], d = resource.deserved[q][i];
      if (a === null && d === null) return;
      rows.push({q: q, qi: qi, a: a, d: d});
    });
    rows.sort(function (x, y) { return (y.a || 0) - (x.a || 0) || (y.d || 0) - (x.d || 0); });
    var shown = rows.filter(function (r) { return r.a || r.d; });
    out.push('<table class="tip"><tr><td></td><td></td><td class="head">allocated</td><td class="head">deserved</td></tr>' +
      shown.map(function (r) {
        return '<tr><td><span class="swatch" style="background:' + colour(r.qi) + '"></span></td><td>' + escapeHtml(r.q) +
          '</td><td class="num">' + human(resource, r.a) + '</td><td class="num">' + human(resource, r.d) + '</td></tr>';
      }).join('') + '</table>');
    if (shown.length < rows.length) out.push('<span style="color:#57606a">' + (rows.length - shown.length) + ' queue(s) at 0</span>');
    return out.join('<br/>');
  }

  main.on('click', function (p) {
    if (p.seriesType === 'scatter' && p.value) openCycle(p.value[3]);
    else if (p.dataIndex !== undefined) openSlot(p.dataIndex);
  });

  // ---- small multiples: one chart per queue, one scale for all ------------------------------------------------

  var multiplesBox = document.getElementById('multiples');
  var minis = [];
  queues.forEach(function (q, i) {
    var fig = document.createElement('figure');
    fig.className = 'multiple';
    fig.dataset.queue = q;
    var cap = document.createElement('figcaption');
    var name = document.createElement('span');
    name.className = 'name';
    var sw = document.createElement('span');
    sw.className = 'swatch';
    sw.style.background = colour(i);
    name.appendChild(sw);
    name.appendChild(document.createTextNode(q));
    name.title = q;
    var now = document.createElement('span');
    now.className = 'now';
    cap.appendChild(name);
    cap.appendChild(now);
    var box = document.createElement('div');
    box.className = 'mini';
    fig.appendChild(cap);
    fig.appendChild(box);
    multiplesBox.appendChild(fig);
    var chart = echarts.init(box, null, {renderer: 'canvas'});
    chart.on('click', function (p) { if (p.dataIndex !== undefined) openSlot(p.dataIndex); });
    charts.push(chart);
    minis.push({queue: q, index: i, chart: chart, now: now});
  });

  function renderMultiples(resource) {
    var unit = axisUnit(resource);
    var max = 0;
    queues.forEach(function (q) {
      resource.allocated[q].concat(resource.deserved[q]).forEach(function (v) { if (v !== null && v / unit.scale > max) max = v / unit.scale; });
    });
    minis.forEach(function (m) {
      var a = resource.allocated[m.queue], d = resource.deserved[m.queue];
      m.now.textContent = human(resource, a[a.length - 1]) + ' / ' + human(resource, d[d.length - 1]);
      m.now.title = 'allocated / deserved after the last cycle';
      m.chart.setOption({
        animation: false,
        grid: {left: 44, right: 10, top: 10, bottom: 24},
        xAxis: {type: 'category', data: labels, axisLabel: {hideOverlap: true, fontSize: 10, color: '#8c959f'},
          axisTick: {show: false}},
        yAxis: {type: 'value', max: max > 0 ? max : 1, splitNumber: 2, axisLabel: {fontSize: 10, formatter: tickLabel(unit)}},
        tooltip: {trigger: 'axis', confine: true, formatter: function (ps) {
          var i = slotOf(ps);
          return '<b>' + escapeHtml(slotTitle(i)) + '</b><br/>' + escapeHtml(m.queue) + ': allocated ' + human(resource, a[i]) +
            ', deserved ' + human(resource, d[i]);
        }},
        series: [
          {id: 'allocated:' + m.queue, name: 'allocated', type: 'line', step: 'end', data: scaled(a, unit), color: colour(m.index),
            showSymbol: false, lineStyle: {width: 2}, areaStyle: {opacity: 0.08}},
          {id: 'deserved:' + m.queue, name: 'deserved', type: 'line', step: 'end', data: scaled(d, unit), color: colour(m.index),
            showSymbol: false, lineStyle: {width: 1.2, type: [5, 3]}},
          idleSeries(false)
        ]
      }, true);
    });
  }

  // ---- the resource switch -------------------------------------------------------------------------------------

  var nav = document.getElementById('resources');
  data.resources.forEach(function (r, i) {
    var b = document.createElement('button');
    b.type = 'button';
    b.textContent = r.name;
    b.dataset.resource = r.name;
    b.setAttribute('aria-pressed', i === 0 ? 'true' : 'false');
    b.addEventListener('click', function () { showResource(i); });
    nav.appendChild(b);
  });

  function showResource(i) {
    resourceIndex = i;
    var resource = data.resources[i];
    nav.querySelectorAll('button').forEach(function (b, j) { b.setAttribute('aria-pressed', j === i ? 'true' : 'false'); });
    main.setOption(mainOption(resource), true);
    renderMultiples(resource);
    recordRendered();
  }

  // ---- PodGroups: phase over the cycles ---------------------------------------------------------------------------

  var groups = data.podGroups;
  var groupBox = document.getElementById('podgroup-timeline');
  var ROW = 26, visibleRows = Math.min(groups.length, 28);
  groupBox.style.height = (Math.max(visibleRows, 2) * ROW + 110) + 'px';
  var groupChart = echarts.init(groupBox, null, {renderer: 'canvas'});
  charts.push(groupChart);

  function segmentText(g, s) {
    var span = slots[s.from].from === slots[s.to].to ? 'cycle ' + slots[s.from].from : 'cycles ' + slots[s.from].from + '\u2013' + slots[s.to].to;
    return s.phase + ' ' + s.running + ' (min ' + s.minMember + ')' + (s.domain ? ' in domain ' + s.domain : '')
        + (s.reason ? ': ' + s.reason : '') + ' (' + span + ')';
  }

  function renderPodGroups() {
    var items = [];
    groups.forEach(function (g, row) {
      g.segments.forEach(function (s) { items.push({value: [s.from, s.to, row], group: g, segment: s}); });
    });
    var names = groups.map(function (g) { return g.name; });
    groupChart.setOption({
      animation: false,
      aria: {enabled: true, label: {data: {maxCount: 0}}},
      grid: {left: 260, right: 40, top: 40, bottom: 60},
      legend: {top: 6, left: 260, data: Object.keys(PHASES).map(function (p) { return {name: p, itemStyle: {color: PHASES[p]}}; }),
        selectedMode: false},
      xAxis: {type: 'category', data: labels, axisLabel: axisLabels(), name: 'cycle', nameLocation: 'middle', nameGap: 30},
      yAxis: {type: 'category', data: names, inverse: true,
        // A long name wraps (two lines fit a row; a longer one is cut at the end) rather than losing its end.
        axisLabel: {width: 240, overflow: 'breakAll', lineHeight: 12, fontSize: 11},
        axisTick: {show: false}, splitLine: {show: true, lineStyle: {color: '#f0f2f4'}}},
      tooltip: {trigger: 'item', confine: true, formatter: function (p) {
        var d = items[p.dataIndex];
        return '<b>' + escapeHtml(d.group.name) + '</b> (queue ' + escapeHtml(d.group.queue) + ')<br/>' +
          '<span style="white-space:normal;display:inline-block;max-width:520px">' + escapeHtml(segmentText(d.group, d.segment)) + '</span>';
      }},
      dataZoom: groups.length > visibleRows ? [
        {type: 'slider', yAxisIndex: 0, right: 8, width: 16, startValue: 0, endValue: visibleRows - 1, showDetail: false},
        {type: 'inside', yAxisIndex: 0, zoomOnMouseWheel: false, moveOnMouseWheel: true},
        {type: 'inside', xAxisIndex: 0}
      ] : [{type: 'inside', xAxisIndex: 0}],
      series: [
        {type: 'custom', id: 'podgroups', name: 'PodGroups', encode: {x: [0, 1], y: 2},
          data: items.map(function (d) { return {value: d.value, itemStyle: {color: PHASES[d.segment.phase] || PHASES.Unknown}}; }),
          renderItem: function (params, api) {
            var from = api.coord([api.value(0), api.value(2)]), to = api.coord([api.value(1), api.value(2)]);
            var band = api.size([1, 1]);
            var x = from[0] - band[0] / 2, w = to[0] - from[0] + band[0], h = Math.max(6, band[1] * 0.64);
            var rect = echarts.graphic.clipRectByRect({x: x + 1, y: from[1] - h / 2, width: Math.max(2, w - 2), height: h}, {
              x: params.coordSys.x, y: params.coordSys.y, width: params.coordSys.width, height: params.coordSys.height});
            if (!rect) return null;
            var d = items[params.dataIndex];
            var text = d.segment.phase === 'Running' ? 'Running ' + d.segment.running + ' (min ' + d.segment.minMember + ')'
              : d.segment.phase + (d.segment.reason ? ': ' + d.segment.reason : '');
            return {type: 'rect', shape: rect, style: api.style(),
              textContent: {style: {text: text, fill: '#1f2328', fontSize: 11, width: Math.max(0, rect.width - 8), overflow: 'truncate'}},
              textConfig: {position: 'insideLeft'}};
          }},
        idleSeries(false)
      ]
    }, true);
  }
  groupChart.on('click', function (p) {
    var d = p.dataIndex !== undefined ? groupChart.getOption().series[0].data[p.dataIndex] : null;
    if (d) openSlot(d.value[0]);
  });

  // ---- what was drawn, for people who cannot see the canvas and for the tests --------------------------------------

  function recordRendered() {
    var drawn = main.getOption().series.map(function (s) { return s.id; });
    document.getElementById('timeline').dataset.series = JSON.stringify(drawn);
    document.getElementById('timeline').dataset.resource = data.resources[resourceIndex] ? data.resources[resourceIndex].name : '';
    minis.forEach(function (m) {
      m.chart.getDom().parentNode.dataset.series = JSON.stringify(m.chart.getOption().series.map(function (s) { return s.id; }));
    });
  }

  window.addEventListener('resize', function () { charts.forEach(function (c) { c.resize(); }); });
  if (data.resources.length) showResource(0);
  else document.getElementById('timeline').textContent = 'No queue held or deserved anything.';
  renderPodGroups();
  document.getElementById('podgroup-timeline').dataset.rows = JSON.stringify(groupChart.getOption().yAxis[0].data);
  var hash = /^#cycle-(\d+)$/.exec(location.hash);
  if (hash) openCycle(Number(hash[1]));
  document.body.dataset.rendered = 'true';
})();
