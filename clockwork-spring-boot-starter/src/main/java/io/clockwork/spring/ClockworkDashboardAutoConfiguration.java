package io.clockwork.spring;

import io.clockwork.dashboard.Authenticator;
import io.clockwork.dashboard.Dashboard;
import io.clockwork.dashboard.InProcessQueueSource;
import io.clockwork.dashboard.QueueSource;
import io.javalin.Javalin;
import jakarta.servlet.Servlet;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.boot.web.servlet.ServletRegistrationBean;
import org.springframework.context.annotation.Bean;
import org.springframework.core.env.Environment;

/**
 * Auto-configuration of the Clockwork dashboard inside a servlet web application: with clockwork-dashboard on the
 * classpath and {@code clockwork.dashboard.enabled=true}, it mounts the dashboard as a servlet under
 * {@code clockwork.dashboard.path}, over the queues {@link ClockworkQueues} has opened. The dashboard binds no port of
 * its own and has no sign-in: it trusts the user the application's security puts on the request
 * ({@link Authenticator#servletPrincipal()}) and refuses a request without one, so the application's login is the only
 * one. Every bean backs off when the application defines its own.
 */
@AutoConfiguration(after = ClockworkAutoConfiguration.class)
@ConditionalOnClass(name = {"io.clockwork.dashboard.Dashboard", "io.javalin.Javalin"})
@ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.SERVLET)
@ConditionalOnProperty(name = "clockwork.dashboard.enabled", havingValue = "true")
@ConditionalOnBean(ClockworkQueues.class)
public class ClockworkDashboardAutoConfiguration {

    /** The name of the dashboard's servlet registration bean (and of the servlet). */
    public static final String SERVLET_BEAN = "clockworkDashboardServlet";

    /**
     * @param queues the application's queues
     * @return the queues the dashboard shows: those the application has opened, read again at every request
     */
    @Bean
    @ConditionalOnMissingBean
    public QueueSource clockworkDashboardQueues(ClockworkQueues queues) {
        String where = switch (queues.backend()) {
            case REDIS -> "Redis: the application's queues";
            case POSTGRES -> "PostgreSQL: the application's queues";
            case IN_PROCESS -> "in-process";
        };
        return InProcessQueueSource.live(() -> queues.opened().values(), where);
    }

    /** @return who makes a request: the servlet container's (so the application's security's) authenticated user */
    @Bean
    @ConditionalOnMissingBean
    public Authenticator clockworkDashboardAuthenticator() {
        return Authenticator.servletPrincipal();
    }

    /**
     * @param source        the queues to show
     * @param authenticator who makes a request
     * @param properties    {@code clockwork.dashboard.*}
     * @param environment   for the servlet context path, which the dashboard cannot serve under
     * @return the dashboard; closed (its sampler stopped) with the context
     */
    @Bean(destroyMethod = "close")
    @ConditionalOnMissingBean
    public Dashboard clockworkDashboard(QueueSource source, Authenticator authenticator,
                                        ClockworkProperties properties, Environment environment) {
        String contextPath = environment.getProperty("server.servlet.context-path", "");
        if (!contextPath.isEmpty() && !contextPath.equals("/")) {
            throw new IllegalStateException("clockwork.dashboard cannot be mounted in an application with "
                    + "server.servlet.context-path (was '" + contextPath + "'): its links and cookie are relative to "
                    + "the root; serve the application at the root, or set clockwork.dashboard.enabled=false");
        }
        Dashboard.Builder b = Dashboard.builder(source).basePath(path(properties.getDashboard().getPath()))
                .authenticator(authenticator);
        if (properties.getDashboard().isReadOnly()) {
            b.readOnly();
        }
        return b.build();
    }

    /**
     * @param dashboard  the dashboard
     * @param properties {@code clockwork.dashboard.path}
     * @return the servlet serving the dashboard under its path, in the application's servlet container
     */
    @Bean(SERVLET_BEAN)
    @ConditionalOnMissingBean(name = SERVLET_BEAN)
    public ServletRegistrationBean<Servlet> clockworkDashboardServlet(Dashboard dashboard,
                                                                      ClockworkProperties properties) {
        Servlet servlet = new DashboardServlet(Javalin.create(config -> {
            config.startup.showJavalinBanner = false;
            dashboard.configure(config);
        }).javalinServlet());
        ServletRegistrationBean<Servlet> registration = new ServletRegistrationBean<>(servlet,
                path(properties.getDashboard().getPath()) + "/*");
        registration.setName(SERVLET_BEAN);
        registration.setAsyncSupported(true);
        return registration;
    }

    /**
     * @param path {@code clockwork.dashboard.path}
     * @return the path without a trailing slash
     * @throws IllegalArgumentException if the path is not below the root
     */
    static String path(String path) {
        String raw = path == null ? "" : path.strip();
        String p = raw;
        while (p.endsWith("/")) {
            p = p.substring(0, p.length() - 1);
        }
        if (!raw.startsWith("/") || p.isEmpty() || !p.matches("[A-Za-z0-9/_.-]+") || p.contains("//")) {
            throw new IllegalArgumentException("clockwork.dashboard.path must start with '/', name a path below the "
                    + "root and hold only letters, digits and / _ . -, was '" + path + "'");
        }
        return p;
    }
}
