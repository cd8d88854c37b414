package io.clockwork.spring;

import jakarta.servlet.Servlet;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.util.Objects;

/**
 * The servlet that serves the dashboard's Javalin in the application's servlet container. Thread-safe, as servlets
 * are. Javalin's own servlet also serves WebSockets and initializes them through Jetty, which fails in another
 * container; the dashboard uses no WebSocket, so this servlet hands every request to Javalin's without initializing
 * it.
 */
final class DashboardServlet extends HttpServlet {

    private static final long serialVersionUID = 1L;

    private final transient Servlet javalin;

    /** @param javalin {@code Javalin.javalinServlet()} of the Javalin the dashboard configured */
    DashboardServlet(Servlet javalin) {
        this.javalin = Objects.requireNonNull(javalin, "javalin");
    }

    @Override
    protected void service(HttpServletRequest request, HttpServletResponse response)
            throws ServletException, IOException {
        javalin.service(request, response);
    }
}
