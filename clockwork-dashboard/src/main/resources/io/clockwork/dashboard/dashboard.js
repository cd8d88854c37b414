// Draws each queue's charts from the samples the dashboard process takes (GET <base>/series?queue=NAME), and
// refreshes them every few seconds. The rates are differences of the queue's event counters (DelayedQueue.counters():
// offered, delivered, acked, retried, dead-lettered, and the polls a rate limit held back) between two samples.
// Loaded as a file: the pages' Content-Security-Policy allows no inline script.
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
            ['deadLetteredPerSecond', 'dead-lettered/s', '#d62728'],
            ['rateLimitedPerSecond', 'rate-limited/s', '#8c564b']]},
        lateness: {title: 'Lateness: oldest ready (s)', series: [
            ['oldestReadySeconds', 'oldest ready (s)', '#ff7f0e']]}
    };

    function columns(json, kind) {
        var data = [json.t];
        KINDS[kind].series.forEach(function (s) { data.push(json[s[0]]); });
        return data;
    }

    // The time axis spans the samples, and at least minSpan seconds (twelve sampling intervals and at least a minute,
    // from the section's data-min-span) ending at the newest. For a single sample uPlot proposes a range of years after it, so the range
    // then comes from the sample itself.
    function timeRange(minSpan) {
        return function (u, min, max) {
            var t = u.data && u.data[0];
            if (t && t.length > 0 && t[0] === t[t.length - 1]) {
                min = max = t[0];
            }
            if (min == null || max == null) {
                var now = Date.now() / 1000;
                return [now - minSpan, now];
            }
            return max - min < minSpan ? [max - minSpan, max] : [min, max];
        };
    }

    // Room between the centres of two time labels: the widest label the axis draws (a time with seconds, or the
    // date line under the first label of a day) plus a gap, measured in the axis's font, so that neighbouring labels
    // never overlap whatever the chart's width.
    var labelSpace = null;

    function timeLabelSpace(u) {
        if (labelSpace === null) {
            var ctx = document.createElement('canvas').getContext('2d');
            ctx.font = u.axes[0].font[0];
            labelSpace = Math.ceil(Math.max(ctx.measureText('12:59:59pm').width,
                ctx.measureText('12/31/26 12:59pm').width)) + 12;
        }
        return labelSpace;
    }

    function create(el, kind, json, minSpan) {
        var series = [{}];
        KINDS[kind].series.forEach(function (s) {
            series.push({label: s[1], stroke: s[2], width: 2, spanGaps: false});
        });
        var width = Math.max(240, el.clientWidth);
        return new uPlot({title: KINDS[kind].title, width: width, height: 170, series: series,
            scales: {x: {time: true, range: timeRange(minSpan)}}, axes: [{space: timeLabelSpace}, {}]},
            columns(json, kind), el);
    }

    function load(section) {
        var url = section.getAttribute('data-series');
        var minSpan = Number(section.getAttribute('data-min-span')) || 60;
        fetch(url, {credentials: 'same-origin', headers: {'Accept': 'application/json'}})
            .then(function (r) { return r.ok ? r.json() : null; })
            .then(function (json) {
                if (!json) { return; }
                section.querySelectorAll('.chart').forEach(function (el) {
                    var kind = el.getAttribute('data-chart');
                    if (el.uplot) {
                        el.uplot.setData(columns(json, kind));
                    } else {
                        el.uplot = create(el, kind, json, minSpan);
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
