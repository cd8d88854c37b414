package io.clockwork.spring;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.CookieManager;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Requests to a dashboard mounted in a test application, as a user signed in with HTTP basic (or as nobody), keeping
 * the dashboard's session cookie like a browser. Not thread-safe: one per test.
 */
final class DashboardClient {

    private static final Pattern ROW = Pattern.compile("<tr data-queue=\"([^\"]+)\">(.*?)</tr>");
    private static final Pattern FIELD = Pattern.compile("data-field=\"([a-z-]+)\">([^<]*)<");
    private static final Pattern CSRF = Pattern.compile("name=\"csrf-token\" content=\"([^\"]+)\"");

    private final String root;
    private final String authorization;
    private final HttpClient http = HttpClient.newBuilder().cookieHandler(new CookieManager())
            .connectTimeout(Duration.ofSeconds(10)).build();

    /**
     * @param port     the application's port
     * @param user     the user, or null for none
     * @param password the user's password
     */
    DashboardClient(int port, String user, String password) {
        this.root = "http://127.0.0.1:" + port;
        this.authorization = user == null ? null : "Basic " + Base64.getEncoder()
                .encodeToString((user + ":" + password).getBytes(StandardCharsets.UTF_8));
    }

    HttpResponse<String> get(String path) throws Exception {
        return send(request(path).GET());
    }

    HttpResponse<String> post(String path, String form) throws Exception {
        return send(request(path).header("Content-Type", "application/x-www-form-urlencoded")
                .POST(HttpRequest.BodyPublishers.ofString(form)));
    }

    private HttpRequest.Builder request(String path) {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(root + path)).timeout(Duration.ofSeconds(30));
        if (authorization != null) {
            b.header("Authorization", authorization);
        }
        return b;
    }

    private HttpResponse<String> send(HttpRequest.Builder b) throws Exception {
        return http.send(b.build(), HttpResponse.BodyHandlers.ofString());
    }

    /**
     * @param page  an overview page
     * @param queue a queue's name
     * @return the counts shown in the queue's row, by field (delayed, ready, in-flight, dead, ...)
     */
    static Map<String, String> row(String page, String queue) {
        Matcher rows = ROW.matcher(page);
        while (rows.find()) {
            if (rows.group(1).equals(queue)) {
                Map<String, String> fields = new LinkedHashMap<>();
                Matcher f = FIELD.matcher(rows.group(2));
                while (f.find()) {
                    fields.put(f.group(1), f.group(2));
                }
                return fields;
            }
        }
        throw new AssertionError("no row for queue " + queue + " on the page:\n" + page);
    }

    /**
     * @param page a dashboard page
     * @return the dashboard session's CSRF token it carries
     */
    static String csrf(String page) {
        Matcher m = CSRF.matcher(page);
        assertThat(m.find()).as("the page carries a CSRF token").isTrue();
        return m.group(1);
    }
}
