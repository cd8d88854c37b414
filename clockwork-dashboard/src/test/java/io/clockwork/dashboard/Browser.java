package io.clockwork.dashboard;

import java.io.IOException;
import java.net.CookieManager;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/** A plain HTTP client with a cookie jar, as a browser without scripts sends requests. Not thread-safe. */
final class Browser {

    private static final Pattern CSRF = Pattern.compile("<meta name=\"csrf-token\" content=\"([^\"]+)\">");

    private final HttpClient http;
    private final String root;

    String root() {
        return root;
    }

    Browser(String root) {
        this.root = root;
        this.http = HttpClient.newBuilder().cookieHandler(new CookieManager())
                .followRedirects(HttpClient.Redirect.NEVER).build();
    }

    HttpResponse<String> get(String path) throws IOException, InterruptedException {
        return http.send(HttpRequest.newBuilder(URI.create(root + path)).GET().build(),
                HttpResponse.BodyHandlers.ofString());
    }

    HttpResponse<String> post(String path, Map<String, String> form) throws IOException, InterruptedException {
        return post(path, form, null);
    }

    HttpResponse<String> post(String path, Map<String, String> form, String origin)
            throws IOException, InterruptedException {
        String body = form.entrySet().stream().map(e -> enc(e.getKey()) + "=" + enc(e.getValue()))
                .collect(Collectors.joining("&"));
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(root + path))
                .header("Content-Type", "application/x-www-form-urlencoded")
                .POST(HttpRequest.BodyPublishers.ofString(body));
        if (origin != null) {
            b.header("Origin", origin);
        }
        return http.send(b.build(), HttpResponse.BodyHandlers.ofString());
    }

    /** @return the CSRF token of the page at path (which starts a session if there is none) */
    String csrf(String path) throws IOException, InterruptedException {
        HttpResponse<String> r = get(path);
        Matcher m = CSRF.matcher(r.body());
        if (!m.find()) {
            throw new AssertionError("no csrf token on " + path + " (" + r.statusCode() + "): " + r.body());
        }
        return m.group(1);
    }

    static String enc(String s) {
        return URLEncoder.encode(s, StandardCharsets.UTF_8);
    }
}
