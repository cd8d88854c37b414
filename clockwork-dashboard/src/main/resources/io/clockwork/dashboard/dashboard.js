// Draws each queue's charts from the samples the dashboard process takes (GET <base>/series?queue=NAME), and
// refreshes them every few seconds. The rates are differences of the queue's event counters (DelayedQueue.counters():
// offered, delivered, acked, retried, dead-lettered) between two samples. Loaded as a file: the pages'
// Content-Security-Policy allows no inline script.
(function () {
    'use strict';
    var REFRESH_MS = 5000;
    var KINDS = {
        counts: {title: 'Messages by state', series: [
            ['delayed', 'delayed', '#7b61ff'], ['ready', 'ready', '#1f77b4'],
            ['inFlight', 'in flight', '#2ca02c'], ['dead', 'dead', '#d62728']]},
        rates: {title: 'Per second', series: [
            ['offeredPerSecond', 'offered/s', '#7b61ff'], ['deliveredPerSecond', 'delivered/s', '#1f77b4'],
            ['ackedPerSecond', 'acked/s', '#2ca02c'], ['retriedPerSecond', 'retried/s', '#ff7f0e'],
            ['deadLetteredPerSecond', 'dead-lettered/s', '#d62728']]},
        lateness: {title: 'Lateness: oldest ready (s)', series: [
            ['oldestReadySeconds', 'oldest ready (s)', '#ff7f0e']]}
    };

    function columns(json, kind) {
        var data = [json.t];
        KINDS[kind].series.forEach(function (s) { data.push(json[s[0]]); });
        return data;
    }

    // The time axis spans the samples, and at least MIN_SPAN_S seconds ending at the newest: with one sample (or
    // none) uPlot would otherwise widen the range around it by years.
    var MIN_SPAN_S = 60;

    function timeRange(u, min, max) {
        if (min == null || max == null) {
            var now = Date.now() / 1000;
            return [now - MIN_SPAN_S, now];
        }
        return max - min < MIN_SPAN_S ? [max - MIN_SPAN_S, max] : [min, max];
    }

    // Room between time labels: the widest label the axis may draw ("12:59:59pm") plus a gap, measured in the
    // axis's font, so that neighbouring labels never overlap whatever the chart's width.
    var labelSpace = null;

    function timeLabelSpace(u) {
        if (labelSpace === null) {
            var ctx = document.createElement('canvas').getContext('2d');
            ctx.font = u.axes[0].font[0];
            labelSpace = Math.ceil(ctx.measureText('12:59:59pm').width) + 16;
        }
        return labelSpace;
    }

    function create(el, kind, json) {
        var series = [{}];
        KINDS[kind].series.forEach(function (s) {
            series.push({label: s[1], stroke: s[2], width: 2, spanGaps: false});
        });
        var width = Math.max(240, el.clientWidth);
        return new uPlot({title: KINDS[kind].title, width: width, height: 170, series: series,
            scales: {x: {time: true, range: timeRange}}, axes: [{space: timeLabelSpace}, {}]},
            columns(json, kind), el);
    }

    function load(section) {
        var url = section.getAttribute('data-series');
        fetch(url, {credentials: 'same-origin', headers: {'Accept': 'application/json'}})
            .then(function (r) { return r.ok ? r.json() : null; })
            .then(function (json) {
                if (!json) { return; }
                section.querySelectorAll('.chart').forEach(function (el) {
                    var kind = el.getAttribute('data-chart');
                    if (el.uplot) {
                        el.uplot.setData(columns(json, kind));
                    } else {
                        el.uplot = create(el, kind, json);
                    }
                    el.setAttribute('data-points', String(json.t.length));
                });
            })
            .catch(function () { /* the next refresh tries again */ });
    }

    function start() {
        var sections = document.querySelectorAll('section.charts');
        sections.forEach(load);
        setInterval(function () { sections.forEach(load); }, REFRESH_MS);
    }

    if (document.readyState === 'loading') {
        document.addEventListener('DOMContentLoaded', start);
    } else {
        start();
    }
})();
