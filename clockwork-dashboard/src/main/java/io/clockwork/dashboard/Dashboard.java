package io.clockwork.dashboard;

import io.clockwork.queue.QueueStats;
import io.clockwork.time.Ticker;
import io.javalin.Javalin;
import io.javalin.config.JavalinConfig;
import io.javalin.http.Context;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The Clockwork dashboard: server-rendered pages over a {@link QueueSource} (counts, charts, messages, dead letters,
 * schedules, actions), secured, on Javalin. Thread-safe.
 *
 * <p>Run it on its own with {@link #start(String, int)}, or mount it in an application's Javalin with
 * {@link #configure(JavalinConfig)} under {@link Builder#basePath(String)}; in another servlet container, hand each
 * request to that Javalin's {@code javalinServlet().service(..)} without calling its {@code init} (which sets up
 * Jetty WebSockets and fails outside Jetty), as the Spring Boot starter does. Who may use it:
 * <ul>
 *   <li>with an {@link Builder#authenticator(Authenticator)}, the host application's users (no second login);</li>
 *   <li>with a {@link Builder#password(char[])}, whoever signs in with it; failed sign-ins are slowed, then locked
 *   out, per client address and over all clients: an attempt that comes too early is answered at once with 429
 *   and {@code Retry-After}, holding no thread;</li>
 *   <li>with neither, anyone who reaches it: {@link #start} then binds loopback addresses only, and requests must
 *   name a loopback host (so that a web page cannot reach it through DNS rebinding).</li>
 * </ul>
 * Every request has a session in an HttpOnly, SameSite=Strict cookie (Secure when the request came over TLS or
 * {@link Builder#secureCookies()}), every action is a POST carrying the session's CSRF token and is confirmed on a
 * page of its own, {@link Builder#readOnly()} shows no action and refuses every one on the server, each action and
 * sign-in is written to the audit log ({@value Audit#LOGGER}), and every response carries a Content-Security-Policy
 * without inline scripts, {@code X-Content-Type-Options}, {@code X-Frame-Options} and {@code Referrer-Policy}.
 */
public final class Dashboard implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(Dashboard.class);

    private static final int PAGE_SIZE = 50;
    /** How many groups a queue page lists, largest backlog first. */
    private static final int GROUPS_SHOWN = 10;
    private static final String UNKNOWN_ACTION = "action must be cancel, reschedule, requeue, requeue-all, purge, "
            + "pause, resume, pause-schedule, resume-schedule or delete, was ";
    private static final Map<String, String[]> ASSETS = Map.of(
            "dashboard.js", new String[] {"io/clockwork/dashboard/dashboard.js", "text/javascript"},
            "dashboard.css", new String[] {"io/clockwork/dashboard/dashboard.css", "text/css"},
            "uPlot.iife.min.js", new String[] {"META-INF/resources/webjars/uplot/" + UPlot.VERSION
                    + "/dist/uPlot.iife.min.js", "text/javascript"},
            "uPlot.min.css", new String[] {"META-INF/resources/webjars/uplot/" + UPlot.VERSION
                    + "/dist/uPlot.min.css", "text/css"});

    private final QueueSource source;
    private final String base;
    private final boolean readOnly;
    private final Duration sampleInterval;
    private final Sampler sampler;
    private final Pages pages;
    private final Gate gate;
    private boolean sampling;
    private Javalin server;

    private Dashboard(Builder b) {
        this.source = b.source;
        this.base = b.basePath;
        this.readOnly = b.readOnly;
        this.sampleInterval = b.sampleInterval;
        this.sampler = new Sampler(source, b.ticker, System.currentTimeMillis(), b.samples);
        this.pages = new Pages(base, readOnly, source.deletesQueues(), sampleInterval);
        this.gate = new Gate(base, b.password, b.authenticator, b.secureCookies, b.ticker, pages);
    }

    /**
     * @param source the queues to show
     * @return a builder
     */
    public static Builder builder(QueueSource source) {
        return new Builder(Objects.requireNonNull(source, "source"));
    }

    /** Builds a {@link Dashboard}. Not thread-safe: one per dashboard. */
    public static final class Builder {

        /** Samples kept per queue by default: an hour at the default interval. */
        public static final int DEFAULT_SAMPLES = 720;
        /** The default sampling interval. */
        public static final Duration DEFAULT_SAMPLE_INTERVAL = Duration.ofSeconds(5);

        private final QueueSource source;
        private String basePath = "";
        private boolean readOnly;
        private char[] password;
        private Authenticator authenticator;
        private boolean secureCookies;
        private Duration sampleInterval = DEFAULT_SAMPLE_INTERVAL;
        private int samples = DEFAULT_SAMPLES;
        private Ticker ticker = Ticker.system();

        private Builder(QueueSource source) {
            this.source = source;
        }

        /**
         * @param path where the dashboard is mounted, e.g. {@code /clockwork}; empty (the default) for the root
         * @return this builder
         */
        public Builder basePath(String path) {
            Objects.requireNonNull(path, "path");
            if (!path.isEmpty() && (!path.startsWith("/") || path.endsWith("/") || !path.matches("[A-Za-z0-9/_.-]+"))) {
                throw new IllegalArgumentException("basePath must be empty or start with '/', not end with '/', and "
                        + "hold only letters, digits and / _ . -, was '" + path + "'");
            }
            basePath = path;
            return this;
        }

        /** Shows no action and refuses every one. @return this builder */
        public Builder readOnly() {
            readOnly = true;
            return this;
        }

        /**
         * Requires a sign-in with this password or token.
         *
         * @param secret at least 12 characters; copied
         * @return this builder
         */
        public Builder password(char[] secret) {
            Objects.requireNonNull(secret, "secret");
            if (secret.length < 12) {
                throw new IllegalArgumentException("password must have at least 12 characters, had " + secret.length);
            }
            if (authenticator != null) {
                throw new IllegalStateException("password and authenticator exclude each other");
            }
            password = secret.clone();
            return this;
        }

        /**
         * Trusts the host application to authenticate requests (no sign-in page).
         *
         * @param authenticator tells who makes a request
         * @return this builder
         */
        public Builder authenticator(Authenticator authenticator) {
            Objects.requireNonNull(authenticator, "authenticator");
            if (password != null) {
                throw new IllegalStateException("password and authenticator exclude each other");
            }
            this.authenticator = authenticator;
            return this;
        }

        /** Marks the session cookie Secure even on plain HTTP (behind a TLS-terminating proxy). @return this */
        public Builder secureCookies() {
            secureCookies = true;
            return this;
        }

        /**
         * @param interval how often the queues are sampled for the charts, 100 ms to 1 h (default 5 s)
         * @return this builder
         */
        public Builder sampleInterval(Duration interval) {
            Objects.requireNonNull(interval, "interval");
            if (interval.compareTo(Duration.ofMillis(100)) < 0 || interval.compareTo(Duration.ofHours(1)) > 0) {
                throw new IllegalArgumentException("sampleInterval must be 100 ms to 1 h, was " + interval);
            }
            sampleInterval = interval;
            return this;
        }

        /**
         * @param count samples kept per queue, 10 to 100,000 (default {@value #DEFAULT_SAMPLES})
         * @return this builder
         */
        public Builder samples(int count) {
            if (count < 10 || count > 100_000) {
                throw new IllegalArgumentException("samples must be 10 to 100,000, was " + count);
            }
            samples = count;
            return this;
        }

        /**
         * @param ticker the clock of sessions, sign-in throttling and sampled rates (tests pass a manual one)
         * @return this builder
         */
        public Builder ticker(Ticker ticker) {
            this.ticker = Objects.requireNonNull(ticker, "ticker");
            return this;
        }

        /** @return the dashboard */
        public Dashboard build() {
            return new Dashboard(this);
        }
    }

    /**
     * Adds the dashboard's routes, under the base path, to a Javalin being configured, and starts sampling.
     *
     * @param config the Javalin's configuration
     */
    public synchronized void configure(JavalinConfig config) {
        Objects.requireNonNull(config, "config");
        var r = config.routes;
        String b = base;
        r.before(b + "/*", gate::guard);
        r.before(b + "/", gate::guard);
        r.after(b + "/*", Gate::securityHeaders);
        r.get(b + "/", this::overview);
        r.get(b + "/queue", this::queuePage);
        r.get(b + "/series", this::series);
        r.get(b + "/confirm", this::confirm);
        r.post(b + "/action", this::action);
        r.get(b + "/login", ctx -> {
            if (!gate.signsIn()) {
                ctx.redirect(base + "/"); // no sign-in here: loopback only, or the host application's
            } else {
                ctx.html(pages.login(""));
            }
        });
        r.post(b + "/login", gate::login);
        r.post(b + "/logout", gate::logout);
        r.get(b + "/assets/{file}", this::asset);
        r.exception(NoSuchQueue.class, (e, ctx) -> {
            Gate.securityHeaders(ctx);
            ctx.status(404).html(pages.message(gate.frame(ctx), "Not found", e.getMessage()));
        });
        r.exception(IllegalArgumentException.class, (e, ctx) -> {
            Gate.securityHeaders(ctx);
            ctx.status(400).html(pages.message(gate.frame(ctx), "Bad request", e.getMessage()));
        });
        r.exception(Exception.class, (e, ctx) -> {
            LOG.error("dashboard request {} {} failed", ctx.method(), ctx.path(), e);
            Gate.securityHeaders(ctx);
            ctx.status(500).html(pages.message(gate.frame(ctx), "Error", "The request failed: "
                    + e.getClass().getSimpleName() + ": " + e.getMessage()));
        });
        if (!sampling) {
            sampler.start(sampleInterval);
            sampling = true;
        }
    }

    /**
     * Starts a server of its own.
     *
     * @param host the address to bind, e.g. {@code 127.0.0.1}
     * @param port the port, 0 for any free one
     * @return the running server ({@code port()} tells the port)
     * @throws IllegalStateException if the host is not a loopback address and neither a password nor an
     *                               authenticator is set
     */
    public synchronized Javalin start(String host, int port) {
        Objects.requireNonNull(host, "host");
        if (server != null) {
            throw new IllegalStateException("the dashboard is already started");
        }
        if (!gate.authenticates() && !loopback(host)) {
            throw new IllegalStateException("binding " + host + " (not a loopback address) requires authentication: "
                    + "set a password (or token); without one the dashboard binds 127.0.0.1 only");
        }
        server = Javalin.create(cfg -> {
            cfg.startup.showJavalinBanner = false;
            configure(cfg);
        }).start(host, port);
        return server;
    }

    /** Stops the server (if {@link #start} started one) and the sampler; the source stays open. */
    @Override
    public synchronized void close() {
        sampler.close();
        if (server != null) {
            server.stop();
        }
        gate.wipe();
    }

    /**
     * @param host a host name or address, e.g. {@code 127.0.0.1}, {@code ::1}, {@code localhost}
     * @return whether it is a loopback address (a name other than {@code localhost} is never trusted to be one)
     */
    public static boolean loopbackAddress(String host) {
        return loopback(Objects.requireNonNull(host, "host"));
    }

    static boolean loopback(String host) {
        String h = host.startsWith("[") && host.endsWith("]") ? host.substring(1, host.length() - 1) : host;
        if (h.equalsIgnoreCase("localhost")) {
            return true;
        }
        if (!h.matches("[0-9.]+|[0-9a-fA-F:]+")) {
            return false; // a name other than localhost is never trusted to be loopback
        }
        try {
            return InetAddress.getByName(h).isLoopbackAddress();
        } catch (UnknownHostException e) {
            return false;
        }
    }

    // ---- pages ----------------------------------------------------------------------------------------------

    private void overview(Context ctx) {
        List<Pages.QueueLine> lines = new ArrayList<>();
        for (String name : source.names()) {
            Optional<QueueView> q = source.queue(name);
            if (q.isEmpty()) {
                continue;
            }
            try {
                QueueStats s = q.get().stats();
                lines.add(new Pages.QueueLine(name, q.get().detail(), Optional.of(s), q.get().oldestReady(),
                        q.get().isPaused(), "", sampler.samples(name)));
            } catch (RuntimeException e) {
                lines.add(new Pages.QueueLine(name, q.get().detail(), Optional.empty(), Optional.empty(), false,
                        "cannot read: " + e.getMessage(), sampler.samples(name)));
            }
        }
        ctx.html(pages.overview(gate.frame(ctx), source.describe(), lines));
    }

    private QueueView queueOr404(String name) {
        if (name == null || name.isEmpty()) {
            throw new IllegalArgumentException("name the queue: ?name=QUEUE");
        }
        return source.queue(name).orElseThrow(() -> new NoSuchQueue(name));
    }

    /** A request for a queue that is not there: a 404. */
    static final class NoSuchQueue extends RuntimeException {
        NoSuchQueue(String name) {
            super("no queue named '" + name + "'", null, false, false);
        }
    }

    private void queuePage(Context ctx) {
        QueueView q = queueOr404(ctx.queryParam("name"));
        String stateParam = ctx.queryParam("state");
        if (Pages.SCHEDULES.equals(stateParam)) {
            ctx.html(pages.schedules(gate.frame(ctx), q, q.stats(), q.schedules(), Instant.now()));
            return;
        }
        MessageState state = stateParam == null ? MessageState.READY : MessageState.ofSlug(stateParam)
                .orElseThrow(() -> new IllegalArgumentException("state must be ready, delayed, in-flight, dead or "
                        + "schedules, was " + Audit.quote(stateParam)));
        String cursor = ctx.queryParam("cursor");
        String id = Texts.orEmpty(ctx.queryParam("id")).trim();
        QueueStats s = q.stats();
        MessagePage page = q.page(state, Optional.ofNullable(cursor).filter(c -> !c.isEmpty()), PAGE_SIZE);
        Optional<MessageRow> found = id.isEmpty() ? Optional.empty() : q.find(id);
        ctx.html(pages.queue(gate.frame(ctx), q, s, state, page, found, id, q.largestGroups(GROUPS_SHOWN),
                Instant.now()));
    }

    private void series(Context ctx) {
        String name = Texts.orEmpty(ctx.queryParam("queue"));
        List<Sample> samples = sampler.samples(name);
        StringBuilder json = new StringBuilder(64 + samples.size() * 80).append('{');
        column(json, "t", samples, x -> x.atMillis() / 1000.0);
        column(json, "delayed", samples, x -> (double) x.delayed());
        column(json, "ready", samples, x -> (double) x.ready());
        column(json, "inFlight", samples, x -> (double) x.inFlight());
        column(json, "dead", samples, x -> (double) x.dead());
        column(json, "offeredPerSecond", samples, Sample::offeredPerSecond);
        column(json, "deliveredPerSecond", samples, Sample::deliveredPerSecond);
        column(json, "ackedPerSecond", samples, Sample::ackedPerSecond);
        column(json, "retriedPerSecond", samples, Sample::retriedPerSecond);
        column(json, "deadLetteredPerSecond", samples, Sample::deadLetteredPerSecond);
        column(json, "rateLimitedPerSecond", samples, Sample::rateLimitedPerSecond);
        column(json, "oldestReadySeconds", samples, Sample::oldestReadySeconds);
        json.setLength(json.length() - 1);
        ctx.contentType("application/json").result(json.append('}').toString());
    }

    private static void column(StringBuilder json, String name, List<Sample> samples,
                               java.util.function.ToDoubleFunction<Sample> f) {
        json.append('"').append(name).append("\":[");
        for (int i = 0; i < samples.size(); i++) {
            double v = f.applyAsDouble(samples.get(i));
            json.append(i == 0 ? "" : ",").append(Double.isFinite(v) ? String.format(Locale.ROOT, "%.3f", v) : "null");
        }
        json.append("],");
    }

    private void asset(Context ctx) throws IOException {
        String[] a = ASSETS.get(ctx.pathParam("file"));
        if (a == null) {
            ctx.status(404).result("not found");
            return;
        }
        try (InputStream in = Dashboard.class.getClassLoader().getResourceAsStream(a[0])) {
            if (in == null) {
                throw new IllegalStateException("asset missing from the jar: " + a[0]);
            }
            ctx.header("Cache-Control", "max-age=3600");
            ctx.contentType(a[1] + (a[1].startsWith("text/") ? "; charset=utf-8" : "")).result(in.readAllBytes());
        }
    }

    // ---- actions --------------------------------------------------------------------------------------------

    private void confirm(Context ctx) {
        if (readOnly) {
            ctx.status(403).html(pages.message(gate.frame(ctx), "Read-only",
                    "This dashboard is read-only: no actions."));
            return;
        }
        String queue = Texts.orEmpty(ctx.queryParam("queue"));
        QueueView q = queueOr404(queue);
        String action = Texts.orEmpty(ctx.queryParam("action"));
        String id = Texts.orEmpty(ctx.queryParam("id"));
        String question = switch (action) {
            case "cancel" -> "Cancel message " + id + " in queue " + q.name() + "? It will never be delivered.";
            case "reschedule" -> "Reschedule message " + id + " in queue " + q.name() + "?";
            case "requeue" -> "Requeue dead letter " + id + " of queue " + q.name()
                    + "? It will be delivered again now.";
            case "requeue-all" -> "Requeue all " + Texts.count(q.stats().dead()) + " dead letters of queue " + q.name()
                    + "? They will be delivered again now.";
            case "purge" -> "Purge all " + Texts.count(q.stats().dead()) + " dead letters of queue " + q.name()
                    + "? They are deleted for good.";
            case "pause" -> "Pause queue " + q.name() + "? Consumers take nothing until it is resumed; offers, "
                    + "schedules and the acks of deliveries already made go on.";
            case "resume" -> "Resume queue " + q.name() + "? Consumers take what is due again.";
            case "pause-schedule" -> "Pause schedule " + id + " of queue " + q.name() + "? Its fire times until it "
                    + "is resumed are skipped.";
            case "resume-schedule" -> "Resume schedule " + id + " of queue " + q.name() + "? It fires again from its "
                    + "next fire time after now.";
            case "delete" -> deleteQuestion(q);
            default -> throw new IllegalArgumentException(UNKNOWN_ACTION + Audit.quote(action));
        };
        if (needsId(action) && id.isEmpty()) {
            throw new IllegalArgumentException("action " + action + " needs " + (action.endsWith("-schedule")
                    ? "a schedule name" : "a message id") + " (&id=...)");
        }
        ctx.html(pages.confirm(gate.frame(ctx), q.name(), action, id, question, action.equals("reschedule")));
    }

    private void requireDeletes() {
        if (!source.deletesQueues()) {
            throw new IllegalArgumentException("the queues of " + source.describe() + " cannot be deleted from the "
                    + "dashboard: they belong to their application");
        }
    }

    private String deleteQuestion(QueueView q) {
        requireDeletes();
        QueueStats s = q.stats();
        return "Delete queue " + q.name() + " and everything stored for it: " + Texts.count(s.delayed())
                + " delayed, " + Texts.count(s.ready()) + " ready, " + Texts.count(s.inFlight()) + " in-flight and "
                + Texts.count(s.dead()) + " dead messages, its schedules and its counters? It is deleted for good; "
                + "a client that still uses it creates it again.";
    }

    private static boolean needsId(String action) {
        return action.equals("cancel") || action.equals("reschedule") || action.equals("requeue")
                || action.endsWith("-schedule");
    }

    private void action(Context ctx) {
        Sessions.Session s = ctx.attribute("session");
        String queue = Texts.orEmpty(ctx.formParam("queue"));
        String action = Texts.orEmpty(ctx.formParam("action"));
        String id = Texts.orEmpty(ctx.formParam("id"));
        if (readOnly) {
            Audit.log(s.user(), ctx.ip(), action.replaceAll("[^a-z-]", "?"), queue, id, "refused: read-only");
            ctx.status(403).html(pages.message(gate.frame(ctx), "Read-only",
                    "This dashboard is read-only: no actions."));
            return;
        }
        if (!"yes".equals(ctx.formParam("confirm"))) {
            throw new IllegalArgumentException("an action must be confirmed (confirm=yes)");
        }
        QueueView q = queueOr404(queue);
        if (needsId(action) && id.isEmpty()) {
            throw new IllegalArgumentException("action " + action + " needs " + (action.endsWith("-schedule")
                    ? "a schedule name" : "a message id"));
        }
        String outcome = switch (action) {
            case "cancel" -> q.cancel(id) ? "cancelled" : "not cancelled: no pending message with this id";
            case "reschedule" -> {
                Duration d = Texts.delay(ctx.formParam("delay"));
                yield q.reschedule(id, d) ? "rescheduled to " + Texts.duration(d) + " from now"
                        : "not rescheduled: no pending message with this id";
            }
            case "requeue" -> q.requeueDead(id) ? "requeued" : "not requeued: no dead letter with this id";
            case "requeue-all" -> "requeued " + q.requeueAllDead() + " dead letter(s)";
            case "purge" -> "purged " + q.purgeDead() + " dead letter(s)";
            case "pause" -> {
                q.pause();
                yield "paused: consumers take nothing until it is resumed";
            }
            case "resume" -> {
                q.resume();
                yield "resumed";
            }
            case "pause-schedule" -> q.pauseSchedule(id) ? "paused"
                    : "not paused: no running schedule with this name";
            case "resume-schedule" -> q.resumeSchedule(id) ? "resumed"
                    : "not resumed: no paused schedule with this name";
            case "delete" -> {
                requireDeletes();
                long keys = source.delete(q.name());
                sampler.forget(q.name());
                yield "deleted (" + Texts.count(keys) + (keys == 1 ? " key)" : " keys)");
            }
            default -> throw new IllegalArgumentException(UNKNOWN_ACTION + Audit.quote(action));
        };
        Audit.log(s.user(), ctx.ip(), action, q.name(), id, outcome);
        s.notice(action + (id.isEmpty() ? "" : " " + id) + " on " + q.name() + ": " + outcome);
        if (action.equals("delete")) {
            ctx.redirect(base + "/");
            return;
        }
        String back = action.endsWith("-schedule") ? Pages.SCHEDULES
                : action.startsWith("requeue") || action.equals("purge") ? MessageState.DEAD.slug()
                : MessageState.READY.slug();
        ctx.redirect(base + "/queue?name=" + Html.url(q.name()) + "&state=" + back);
    }
}
