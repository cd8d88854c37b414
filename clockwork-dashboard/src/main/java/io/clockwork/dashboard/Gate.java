package io.clockwork.dashboard;

import io.clockwork.time.Ticker;
import io.javalin.http.Context;
import io.javalin.http.HandlerType;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * Who may use a {@link Dashboard}, checked before every request: its sessions (an HttpOnly, SameSite=Strict cookie),
 * sign-in with a password and its throttle, or the host application's {@link Authenticator}, or loopback hosts only;
 * same-origin and CSRF checks of every POST; the security headers of every response; the audit of refusals and
 * sign-ins. Thread-safe: its state is in {@link Sessions} and {@link SignInThrottle}, both thread-safe.
 */
final class Gate {

    /** The session cookie's name. */
    static final String COOKIE = "clockwork_dashboard";

    private static final String CSP = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
            + "connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'";
    private static final Pattern USER = Pattern.compile("[A-Za-z0-9._@-]{1,64}");

    private final String base;
    private final char[] password;
    private final Authenticator authenticator;
    private final boolean secureCookies;
    private final Sessions sessions;
    private final SignInThrottle throttle;
    private final Pages pages;

    /**
     * @param password      the sign-in secret, or null; {@link #wipe()} clears it
     * @param authenticator the host application's users, or null
     */
    Gate(String base, char[] password, Authenticator authenticator, boolean secureCookies, Ticker ticker,
         Pages pages) {
        this.base = base;
        this.password = password;
        this.authenticator = authenticator;
        this.secureCookies = secureCookies;
        this.sessions = new Sessions(ticker, Duration.ofMinutes(30), Duration.ofHours(12));
        this.throttle = new SignInThrottle(ticker);
        this.pages = pages;
    }

    /** @return true if a password is set: the dashboard has a sign-in page */
    boolean signsIn() {
        return password != null;
    }

    /** @return true if requests are authenticated (a password or an authenticator) */
    boolean authenticates() {
        return password != null || authenticator != null;
    }

    /** Overwrites the password in memory. */
    void wipe() {
        if (password != null) {
            Arrays.fill(password, '\0');
        }
    }

    private Optional<Sessions.Session> session(Context ctx) {
        return sessions.find(ctx.cookie(COOKIE));
    }

    private Sessions.Session startSession(Context ctx, String user) {
        Map.Entry<String, Sessions.Session> s = sessions.create(user);
        boolean secure = secureCookies || "https".equalsIgnoreCase(ctx.scheme());
        ctx.res().addHeader("Set-Cookie", COOKIE + "=" + s.getKey() + "; Path=" + (base.isEmpty() ? "/" : base)
                + "; HttpOnly; SameSite=Strict" + (secure ? "; Secure" : ""));
        return s.getValue();
    }

    void guard(Context ctx) {
        if (ctx.attribute("guarded") != null) {
            return; // both of the base's before-handlers match its root
        }
        ctx.attribute("guarded", Boolean.TRUE);
        securityHeaders(ctx);
        String path = ctx.path();
        if (path.startsWith(base + "/assets/")) {
            return;
        }
        boolean post = ctx.method() == HandlerType.POST;
        if (post && !sameOrigin(ctx)) {
            refuse(ctx, 403, "Refused", "This action came from another site (its Origin is not this dashboard's).",
                    "cross-origin");
            return;
        }
        Sessions.Session s;
        if (authenticator != null) {
            Optional<String> user = authenticator.user(ctx.req());
            if (user.isEmpty()) {
                refuse(ctx, 401, "Not signed in", "Sign in to the application first.", "no user");
                return;
            }
            s = session(ctx).filter(x -> x.user().equals(user.get())).orElseGet(() -> startSession(ctx, user.get()));
        } else if (password != null) {
            Optional<Sessions.Session> found = session(ctx);
            boolean loginPath = path.equals(base + "/login");
            if (found.isEmpty()) {
                if (loginPath) {
                    return;
                }
                if (post || !path.equals(base + "/") && !path.equals(base + "/queue")) {
                    refuse(ctx, 401, "Not signed in", "Sign in first.", "no session");
                } else {
                    ctx.redirect(base + "/login");
                    ctx.skipRemainingHandlers();
                }
                return;
            }
            s = found.get();
        } else {
            String host = ctx.host() == null ? "" : ctx.host().replaceFirst(":[0-9]+$", "");
            if (!Dashboard.loopback(host)) {
                refuse(ctx, 403, "Refused", "Without authentication the dashboard answers requests for a loopback "
                        + "host only.", "non-loopback host");
                return;
            }
            s = session(ctx).orElseGet(() -> startSession(ctx, "local"));
        }
        ctx.attribute("session", s);
        if (post && !path.equals(base + "/login") && !Sessions.same(ctx.formParam("_csrf"), s.csrf())) {
            refuse(ctx, 403, "Refused", "This action carries no valid CSRF token: reload the page and try again.",
                    "bad csrf token");
        }
    }

    private boolean sameOrigin(Context ctx) {
        String origin = ctx.header("Origin");
        if (origin == null) {
            return true; // not sent by every browser for same-origin requests; the CSRF token still guards
        }
        return origin.equals(ctx.scheme() + "://" + ctx.host());
    }

    private void refuse(Context ctx, int status, String title, String text, String why) {
        if (ctx.method() == HandlerType.POST) {
            Sessions.Session s = ctx.attribute("session");
            Audit.log(s == null ? "-" : s.user(), ctx.ip(), "refused " + actionName(ctx),
                    Texts.orEmpty(ctx.formParam("queue")), Texts.orEmpty(ctx.formParam("id")), why);
        }
        ctx.status(status).html(pages.message(new Pages.Frame("", "", false, null), title, text));
        ctx.skipRemainingHandlers();
    }

    private static String actionName(Context ctx) {
        String a = ctx.path().endsWith("/action") ? ctx.formParam("action") : ctx.path();
        return a == null ? "?" : a.replaceAll("[^A-Za-z0-9/_-]", "?");
    }

    static void securityHeaders(Context ctx) {
        ctx.header("Content-Security-Policy", CSP);
        ctx.header("X-Content-Type-Options", "nosniff");
        ctx.header("X-Frame-Options", "DENY");
        ctx.header("Referrer-Policy", "same-origin"); // no-referrer would make browsers send "Origin: null"
        ctx.header("Cross-Origin-Opener-Policy", "same-origin");
        if (!ctx.path().startsWith("/assets/") && !ctx.path().contains("/assets/")) {
            ctx.header("Cache-Control", "no-store");
        }
    }

    Pages.Frame frame(Context ctx) {
        Sessions.Session s = ctx.attribute("session");
        if (s == null) {
            return new Pages.Frame("", "", false, null);
        }
        return new Pages.Frame(s.user(), s.csrf(), password != null, s.takeNotice());
    }

    void login(Context ctx) {
        if (password == null) {
            ctx.status(404).html(pages.message(frame(ctx), "Not found", "This dashboard has no sign-in."));
            return;
        }
        String user = Texts.orEmpty(ctx.formParam("user")).trim();
        if (!USER.matcher(user).matches()) {
            user = "operator";
        }
        String client = ctx.ip();
        SignInThrottle.Verdict v = throttle.admit(client);
        if (!v.admitted()) {
            Audit.log(user, client, "login", "", "", "refused: too many failed sign-ins, " + v.describeWait());
            ctx.header("Retry-After", Long.toString(v.retryAfterSeconds()));
            ctx.status(429).html(pages.login("Too many failed sign-ins: try again in "
                    + Texts.duration(Duration.ofSeconds(v.retryAfterSeconds())) + "."));
            return;
        }
        char[] given = Texts.orEmpty(ctx.formParam("password")).toCharArray();
        boolean ok = MessageDigestChars.same(password, given);
        Arrays.fill(given, '\0');
        if (!ok) {
            String wait = v.describeWait();
            Audit.log(user, client, "login", "", "", "refused: wrong password, failure " + v.failures()
                    + " from this address" + (wait.isEmpty() ? "" : ", " + wait));
            if (!v.delay().isZero()) {
                ctx.header("Retry-After", Long.toString(v.retryAfterSeconds()));
            }
            ctx.status(401).html(pages.login("Wrong password or token."
                    + (v.delay().isZero() ? "" : " Try again in " + Texts.duration(Duration.ofSeconds(
                            v.retryAfterSeconds())) + ".")));
            return;
        }
        throttle.succeeded(client);
        session(ctx).ifPresent(sessions::remove);
        startSession(ctx, user);
        Audit.log(user, client, "login", "", "", "signed in");
        ctx.redirect(base + "/");
    }

    void logout(Context ctx) {
        Sessions.Session s = ctx.attribute("session");
        sessions.remove(s);
        Audit.log(s.user(), ctx.ip(), "logout", "", "", "signed out");
        ctx.res().addHeader("Set-Cookie", COOKIE + "=; Path=" + (base.isEmpty() ? "/" : base)
                + "; Max-Age=0; HttpOnly; SameSite=Strict");
        ctx.redirect(password != null ? base + "/login" : base + "/");
    }

    /** Constant-time comparison of two secrets held as characters. */
    private static final class MessageDigestChars {
        static boolean same(char[] a, char[] b) {
            byte[] x = new String(a).getBytes(StandardCharsets.UTF_8);
            byte[] y = new String(b).getBytes(StandardCharsets.UTF_8);
            return java.security.MessageDigest.isEqual(x, y);
        }
    }
}
