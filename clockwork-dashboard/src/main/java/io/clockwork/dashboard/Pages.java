package io.clockwork.dashboard;

import io.clockwork.queue.GroupBacklog;
import io.clockwork.queue.QueueStats;
import io.clockwork.schedule.ScheduleInfo;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/** Renders the dashboard's pages. Immutable and thread-safe. */
final class Pages {

    private static final int PREVIEW_CHARS = 80;
    private static final int DETAIL_CHARS = 2000;
    /** The queue page's {@code state} that shows its schedules instead of messages. */
    static final String SCHEDULES = "schedules";

    /** What every page needs to know about its request. */
    record Frame(String user, String csrf, boolean showLogout, String notice) {
    }

    /**
     * One queue on the overview: its stats, or why they could not be read, and its samples for the sparkline.
     *
     * @param detail what sets it apart beside the source, e.g. {@code 4 partitions}, or empty
     * @param paused whether it is paused
     */
    record QueueLine(String name, String detail, Optional<QueueStats> stats, Optional<Duration> oldestReady,
                     boolean paused, String error, List<Sample> samples) {
    }

    private final String base;
    private final boolean readOnly;
    private final boolean deletes;
    private final long chartMinSpanSeconds;

    /**
     * @param base           the base path
     * @param readOnly       whether actions are hidden
     * @param deletes        whether the source deletes queues (a queue page then offers it)
     * @param sampleInterval how often queues are sampled: a chart's time axis spans at least twelve intervals, and
     *                       at least a minute (shorter spans would need labels in milliseconds)
     */
    Pages(String base, boolean readOnly, boolean deletes, Duration sampleInterval) {
        this.base = base;
        this.readOnly = readOnly;
        this.deletes = deletes;
        this.chartMinSpanSeconds = Math.max(60, sampleInterval.multipliedBy(12).toSeconds());
    }

    String overview(Frame f, String source, List<QueueLine> queues) {
        Html h = new Html();
        h.raw("<h1>Queues</h1><p class=\"muted\">").text(queues.size()).raw(queues.size() == 1 ? " queue" : " queues")
                .raw(" on ").text(source).raw(readOnly ? " &middot; <span class=\"badge\">read-only</span>" : "")
                .raw("</p>");
        if (queues.isEmpty()) {
            h.raw("<p>No queue is registered yet: a queue appears once a client has built it.</p>");
        }
        h.raw("<table id=\"queues\"><thead><tr><th>Queue</th><th>Backlog</th><th>Delayed</th><th>Ready</th>"
                + "<th>In flight</th><th>Dead</th><th>Lost</th><th>Oldest ready</th><th>Next due in</th></tr></thead>"
                + "<tbody>");
        for (QueueLine q : queues) {
            h.raw("<tr data-queue=\"").text(q.name()).raw("\"><td><a href=\"").raw(queueHref(q.name(), null))
                    .raw("\">").text(q.name()).raw("</a>");
            if (!q.detail().isEmpty()) {
                h.raw(" <span class=\"muted small\">").text(q.detail()).raw("</span>");
            }
            if (q.paused()) {
                h.raw(" <span class=\"badge paused\">paused</span>");
            }
            h.raw("</td><td class=\"spark\" data-field=\"backlog\">");
            Sparkline.draw(h, q.samples());
            h.raw("</td>");
            if (q.stats().isPresent()) {
                QueueStats s = q.stats().get();
                cell(h, "delayed", Texts.count(s.delayed()));
                cell(h, "ready", Texts.count(s.ready()));
                cell(h, "in-flight", Texts.count(s.inFlight()));
                cell(h, "dead", Texts.count(s.dead()));
                cell(h, "lost", Texts.count(s.lost()));
                cell(h, "oldest-ready", q.oldestReady().map(Texts::duration).orElse("-"));
                cell(h, "next-due", s.nextDueIn().map(Texts::duration).orElse("-"));
            } else {
                h.raw("<td colspan=\"7\" class=\"error\">").text(q.error()).raw("</td>");
            }
            h.raw("</tr>");
        }
        h.raw("</tbody></table><p class=\"muted small\">Backlog: delayed, ready and in-flight messages over the "
                + "dashboard's recent samples. A queue's page charts its counts, rates and lateness.</p>");
        return layout(f, "Clockwork queues", h.toString(), false);
    }

    String queue(Frame f, QueueView q, QueueStats s, MessageState state, MessagePage page, Optional<MessageRow> found,
                 String lookedUp, List<GroupBacklog> groups, Instant now) {
        Html h = new Html();
        head(h, q, s, state);
        h.raw("<form class=\"find\" method=\"get\" action=\"").raw(base).raw("/queue\">")
                .raw("<input type=\"hidden\" name=\"name\" value=\"").text(q.name()).raw("\">")
                .raw("<label>Look up id <input id=\"find-id\" name=\"id\" maxlength=\"1024\" value=\"").text(lookedUp)
                .raw("\"></label> <button type=\"submit\">Find</button></form>");
        if (!lookedUp.isEmpty()) {
            if (!q.browsable()) {
                h.raw("<p class=\"muted\">This backend looks messages up by id only for actions.</p>");
            } else if (found.isEmpty()) {
                h.raw("<p id=\"found\" class=\"error\">No message with id ").text(lookedUp).raw(" in this queue.</p>");
            } else {
                h.raw("<h2>Message</h2>");
                detail(h, q.name(), found.get(), now);
            }
        }
        if (!readOnly && state == MessageState.DEAD && s.dead() > 0) {
            h.raw("<p class=\"actions\">");
            action(h, q.name(), "requeue-all", "", "Requeue all dead letters");
            action(h, q.name(), "purge", "", "Purge dead letters");
            h.raw("</p>");
        }
        if (!q.browsable() && state != MessageState.DEAD) {
            h.raw("<p class=\"muted\">This backend lists dead letters only: the queue contract reaches live messages "
                    + "by id.</p>");
        }
        h.raw("<table id=\"messages\"><thead><tr><th>Id</th><th>").raw(atHeader(state))
                .raw("</th><th>Attempts</th><th>Payload</th><th>Headers</th>")
                .raw(state == MessageState.DEAD ? "<th>Reason</th>" : "<th>Last error</th>")
                .raw(readOnly ? "" : "<th>Actions</th>").raw("</tr></thead><tbody>");
        for (MessageRow r : page.rows()) {
            h.raw("<tr data-id=\"").text(r.id()).raw("\"><td class=\"id\">").text(r.id()).raw("</td><td>")
                    .text(r.at().map(t -> when(t, now)).orElse("-")).raw("</td><td>").text(r.attempts())
                    .raw("</td><td class=\"payload\">").text(Preview.of(r.payload(), PREVIEW_CHARS))
                    .raw("</td><td class=\"small\">");
            headers(h, r.headers());
            h.raw("</td><td class=\"small\">").text(r.error()).raw("</td>");
            if (!readOnly) {
                h.raw("<td>");
                rowActions(h, q.name(), r);
                h.raw("</td>");
            }
            h.raw("</tr>");
        }
        h.raw("</tbody></table><p class=\"muted\">").text(page.rows().size()).raw(" shown of ")
                .text(Texts.count(page.total()));
        if (!page.complete()) {
            h.raw(" (this backend lists the first page only)");
        }
        h.raw("</p>");
        if (page.next().isPresent()) {
            h.raw("<p><a id=\"next-page\" href=\"").raw(queueHref(q.name(), state)).raw("&amp;cursor=")
                    .text(Html.url(page.next().get())).raw("\">Next page &rarr;</a></p>");
        }
        groups(h, groups);
        charts(h, q.name());
        return layout(f, q.name() + " - Clockwork", h.toString(), true);
    }

    /** The groups holding the most ready messages, when messages name groups: who the backlog belongs to. */
    private static void groups(Html h, List<GroupBacklog> groups) {
        if (groups.isEmpty()) {
            return;
        }
        h.raw("<h2>Largest groups</h2><table id=\"groups\"><thead><tr><th>Group</th><th>Ready</th>"
                + "<th>In flight</th></tr></thead><tbody>");
        for (GroupBacklog g : groups) {
            h.raw("<tr data-group=\"").text(g.group()).raw("\"><td class=\"id\">").text(g.group())
                    .raw("</td><td data-field=\"ready\">").text(Texts.count(g.ready()))
                    .raw("</td><td data-field=\"in-flight\">").text(Texts.count(g.inFlight())).raw("</td></tr>");
        }
        h.raw("</tbody></table><p class=\"muted small\">The ").text(groups.size())
                .raw(groups.size() == 1 ? " group" : " groups")
                .raw(" with the most messages due and waiting their turn; ungrouped messages are not listed.</p>");
    }

    /** A queue's schedules tab: every schedule with its rule, state, fire times and misfire policy. */
    String schedules(Frame f, QueueView q, QueueStats s, List<ScheduleInfo> schedules, Instant now) {
        Html h = new Html();
        head(h, q, s, null);
        if (schedules.isEmpty()) {
            h.raw("<p id=\"no-schedules\">No recurring schedule on this queue.</p>");
            return layout(f, q.name() + " schedules - Clockwork", h.toString(), false);
        }
        h.raw("<table id=\"schedules\"><thead><tr><th>Name</th><th>Rule</th><th>State</th><th>Last fire</th>")
                .raw("<th>Next fire</th><th>Misfire</th>").raw(readOnly ? "" : "<th>Actions</th>")
                .raw("</tr></thead><tbody>");
        for (ScheduleInfo x : schedules) {
            h.raw("<tr data-schedule=\"").text(x.name()).raw("\"><td class=\"id\">").text(x.name())
                    .raw("</td><td data-field=\"rule\">").text(x.rule()).raw("</td><td data-field=\"state\">")
                    .raw(x.paused() ? "<span class=\"badge\">paused</span>" : "active")
                    .raw("</td><td data-field=\"last-fire\">").text(x.lastFire().map(t -> when(t, now)).orElse("-"))
                    .raw("</td><td data-field=\"next-fire\">").text(x.nextFire().map(t -> when(t, now)).orElse("-"))
                    .raw("</td><td data-field=\"misfire\">").text(x.misfire()).raw("</td>");
            if (!readOnly) {
                h.raw("<td>");
                if (x.paused()) {
                    action(h, q.name(), "resume-schedule", x.name(), "Resume");
                } else {
                    action(h, q.name(), "pause-schedule", x.name(), "Pause");
                }
                h.raw("</td>");
            }
            h.raw("</tr>");
        }
        h.raw("</tbody></table><p class=\"muted\">").text(Texts.count(schedules.size()))
                .raw(schedules.size() == 1 ? " schedule" : " schedules").raw(". The applications' schedulers fire "
                        + "them; this dashboard fires none.</p>");
        return layout(f, q.name() + " schedules - Clockwork", h.toString(), false);
    }

    String confirm(Frame f, String queue, String action, String id, String question, boolean needsDelay) {
        Html h = new Html();
        h.raw("<h1>Confirm</h1><p id=\"question\">").text(question).raw("</p>")
                .raw("<form method=\"post\" action=\"").raw(base).raw("/action\">")
                .raw("<input type=\"hidden\" name=\"_csrf\" value=\"").text(f.csrf()).raw("\">")
                .raw("<input type=\"hidden\" name=\"queue\" value=\"").text(queue).raw("\">")
                .raw("<input type=\"hidden\" name=\"action\" value=\"").text(action).raw("\">")
                .raw("<input type=\"hidden\" name=\"id\" value=\"").text(id).raw("\">")
                .raw("<input type=\"hidden\" name=\"confirm\" value=\"yes\">");
        if (needsDelay) {
            h.raw("<p><label>New delay from now <input id=\"delay\" name=\"delay\" value=\"30s\" maxlength=\"32\">"
                    + "</label> <span class=\"muted small\">e.g. 0s, 30s, 5m, 2h, 1d</span></p>");
        }
        h.raw("<p><button id=\"confirm\" type=\"submit\" class=\"danger\">Yes, do it</button> <a id=\"cancel\" href=\"")
                .raw(action.endsWith("-schedule") ? schedulesHref(queue) : queueHref(queue, null))
                .raw("\">No, go back</a></p></form>");
        return layout(f, "Confirm - Clockwork", h.toString(), false);
    }

    String login(String error) {
        Html h = new Html();
        h.raw("<h1>Sign in</h1>");
        if (!error.isEmpty()) {
            h.raw("<p id=\"login-error\" class=\"error\">").text(error).raw("</p>");
        }
        h.raw("<form method=\"post\" action=\"").raw(base).raw("/login\" class=\"login\">")
                .raw("<p><label>Name <input id=\"user\" name=\"user\" maxlength=\"64\" autocomplete=\"username\">"
                        + "</label> <span class=\"muted small\">for the audit log</span></p>")
                .raw("<p><label>Password or token <input id=\"password\" name=\"password\" type=\"password\" "
                        + "autocomplete=\"current-password\"></label></p>")
                .raw("<p><button id=\"sign-in\" type=\"submit\">Sign in</button></p></form>");
        return layout(new Frame("", "", false, null), "Sign in - Clockwork", h.toString(), false);
    }

    String message(Frame f, String title, String text) {
        Html h = new Html();
        h.raw("<h1>").text(title).raw("</h1><p id=\"message\">").text(text).raw("</p><p><a href=\"").raw(base)
                .raw("/\">All queues</a></p>");
        return layout(f, title + " - Clockwork", h.toString(), false);
    }

    /** The queue page's heading and tabs: one per message state, then the schedules; {@code state} null for those. */
    private void head(Html h, QueueView q, QueueStats s, MessageState state) {
        boolean paused = q.isPaused();
        h.raw("<p><a href=\"").raw(base).raw("/\">&larr; all queues</a></p><h1>").text(q.name()).raw("</h1>")
                .raw("<p class=\"muted\">").text(q.backend()).raw(readOnly ? " &middot; read-only" : "")
                .raw(" &middot; <span id=\"queue-state\"").raw(paused ? " class=\"badge paused\">paused" : ">running")
                .raw("</span> ");
        if (!readOnly) {
            action(h, q.name(), paused ? "resume" : "pause", "", paused ? "Resume" : "Pause");
        }
        if (!readOnly && deletes) {
            h.raw(" &middot; ");
            action(h, q.name(), "delete", "", "Delete queue");
        }
        // Polls a rate limit held back, from the counters the charts' rates come from.
        q.counters().ifPresent(c -> h.raw(" &middot; <span id=\"rate-limited\" title=\"polls that found due "
                + "messages but returned none because a rate limit held them back, since the queue was created\">")
                .text(Texts.count(c.rateLimited()))
                .raw(c.rateLimited() == 1 ? " rate-limited wait</span>" : " rate-limited waits</span>"));
        h.raw("</p>");
        h.raw("<nav class=\"tabs\">");
        for (MessageState t : MessageState.values()) {
            long n = switch (t) {
                case READY -> s.ready();
                case DELAYED -> s.delayed();
                case IN_FLIGHT -> s.inFlight();
                case DEAD -> s.dead();
            };
            h.raw("<a id=\"tab-").raw(t.slug()).raw("\" class=\"").raw(t == state ? "tab current" : "tab")
                    .raw("\" href=\"").raw(queueHref(q.name(), t)).raw("\">").text(t.label()).raw(" <span class=\"n\">")
                    .text(Texts.count(n)).raw("</span></a>");
        }
        h.raw("<a id=\"tab-").raw(SCHEDULES).raw("\" class=\"").raw(state == null ? "tab current" : "tab")
                .raw("\" href=\"").raw(schedulesHref(q.name())).raw("\">Schedules</a>");
        h.raw("</nav>");
    }

    private void detail(Html h, String queue, MessageRow r, Instant now) {
        h.raw("<dl class=\"detail\"><dt>Id</dt><dd id=\"found-id\">").text(r.id()).raw("</dd><dt>State</dt><dd id=\"found-state\">")
                .text(r.state().label()).raw("</dd><dt>").raw(atHeader(r.state())).raw("</dt><dd>")
                .text(r.at().map(t -> when(t, now)).orElse("-")).raw("</dd><dt>Attempts</dt><dd>").text(r.attempts())
                .raw("</dd><dt>Headers</dt><dd>");
        headers(h, r.headers());
        h.raw("</dd><dt>").raw(r.state() == MessageState.DEAD ? "Reason" : "Last error").raw("</dt><dd>")
                .text(r.error()).raw("</dd><dt>Payload</dt><dd><pre>").text(Preview.of(r.payload(), DETAIL_CHARS))
                .raw("</pre></dd></dl>");
        if (!readOnly) {
            h.raw("<p>");
            rowActions(h, queue, r);
            h.raw("</p>");
        }
    }

    private void rowActions(Html h, String queue, MessageRow r) {
        if (r.state() == MessageState.DEAD) {
            action(h, queue, "requeue", r.id(), "Requeue");
        } else if (r.state() != MessageState.IN_FLIGHT) {
            action(h, queue, "reschedule", r.id(), "Reschedule");
            action(h, queue, "cancel", r.id(), "Cancel");
        }
    }

    /** An action is a link to its confirmation page; only that page's form (POST, CSRF token) acts. */
    private void action(Html h, String queue, String action, String id, String label) {
        h.raw("<a class=\"action ").raw(action).raw("\" href=\"").raw(base).raw("/confirm?queue=").text(Html.url(queue))
                .raw("&amp;action=").raw(action).raw(id.isEmpty() ? "" : "&amp;id=" + Html.esc(Html.url(id)))
                .raw("\">").text(label).raw("</a> ");
    }

    private static void headers(Html h, Map<String, String> headers) {
        boolean first = true;
        for (Map.Entry<String, String> e : headers.entrySet()) {
            h.raw(first ? "" : "<br>").text(e.getKey()).raw("=").text(Preview.of(
                    e.getValue().getBytes(java.nio.charset.StandardCharsets.UTF_8), PREVIEW_CHARS));
            first = false;
        }
    }

    private static String when(Instant t, Instant now) {
        Duration d = Duration.between(now, t);
        return Texts.instant(t) + (d.isNegative() ? " (" + Texts.duration(d.negated()) + " ago)"
                : " (in " + Texts.duration(d) + ")");
    }

    private static String atHeader(MessageState s) {
        return switch (s) {
            case READY, DELAYED -> "Due";
            case IN_FLIGHT -> "Visible again";
            case DEAD -> "Died";
        };
    }

    private static void cell(Html h, String field, String value) {
        h.raw("<td class=\"num\" data-field=\"").raw(field).raw("\">").text(value).raw("</td>");
    }

    private void charts(Html h, String queue) {
        h.raw("<section class=\"charts\" data-queue=\"").text(queue).raw("\" data-series=\"").raw(base)
                .raw("/series?queue=").text(Html.url(queue)).raw("\" data-min-span=\"").text(chartMinSpanSeconds)
                .raw("\"><h2>").text(queue)
                .raw(" over time</h2><div class=\"row\"><div class=\"chart\" data-chart=\"counts\"></div>"
                        + "<div class=\"chart\" data-chart=\"rates\"></div>"
                        + "<div class=\"chart\" data-chart=\"lateness\"></div></div></section>");
    }

    private String queueHref(String queue, MessageState state) {
        return base + "/queue?name=" + Html.esc(Html.url(queue))
                + (state == null ? "" : "&amp;state=" + state.slug());
    }

    private String schedulesHref(String queue) {
        return queueHref(queue, null) + "&amp;state=" + SCHEDULES;
    }

    private String layout(Frame f, String title, String body, boolean charts) {
        Html h = new Html();
        h.raw("<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\"><link rel=\"icon\" href=\"data:,\">")
                .raw("<title>").text(title)
                .raw("</title><link rel=\"stylesheet\" href=\"").raw(base).raw("/assets/dashboard.css\">");
        if (!f.csrf().isEmpty()) {
            h.raw("<meta name=\"csrf-token\" content=\"").text(f.csrf()).raw("\">");
        }
        if (charts) {
            h.raw("<link rel=\"stylesheet\" href=\"").raw(base).raw("/assets/uPlot.min.css\">")
                    .raw("<script src=\"").raw(base).raw("/assets/uPlot.iife.min.js\" defer></script>")
                    .raw("<script src=\"").raw(base).raw("/assets/dashboard.js\" defer></script>");
        }
        h.raw("</head><body><header><a class=\"brand\" href=\"").raw(base).raw("/\">Clockwork</a>");
        if (!f.user().isEmpty()) {
            h.raw("<span class=\"user\">").text(f.user()).raw("</span>");
        }
        if (f.showLogout()) {
            h.raw("<form method=\"post\" action=\"").raw(base).raw("/logout\" class=\"logout\">")
                    .raw("<input type=\"hidden\" name=\"_csrf\" value=\"").text(f.csrf())
                    .raw("\"><button id=\"sign-out\" type=\"submit\">Sign out</button></form>");
        }
        h.raw("</header><main>");
        if (f.notice() != null) {
            h.raw("<p id=\"notice\" class=\"notice\">").text(f.notice()).raw("</p>");
        }
        h.raw(body).raw("</main></body></html>");
        return h.toString();
    }
}
