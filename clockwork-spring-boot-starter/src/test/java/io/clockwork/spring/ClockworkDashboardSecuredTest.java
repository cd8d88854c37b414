package io.clockwork.spring;

import static org.assertj.core.api.Assertions.assertThat;

import io.clockwork.queue.DelayedQueue;
import io.clockwork.queue.QueueStats;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.web.servlet.ServletRegistrationBean;
import org.springframework.context.annotation.Bean;
import org.springframework.security.config.Customizer;
import org.springframework.security.config.annotation.web.builders.HttpSecurity;
import org.springframework.security.core.userdetails.User;
import org.springframework.security.core.userdetails.UserDetailsService;
import org.springframework.security.provisioning.InMemoryUserDetailsManager;
import org.springframework.security.web.SecurityFilterChain;

/**
 * The dashboard mounted by the starter in a real servlet application on Tomcat, behind the application's Spring
 * Security (HTTP basic, an in-memory user), over the application's in-process queues, with actions allowed.
 */
@SpringBootTest(classes = ClockworkDashboardSecuredTest.App.class,
        webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT, properties = {
        "clockwork.dashboard.enabled=true",
        "clockwork.dashboard.read-only=false",
        "clockwork.queues.shown.max-attempts=1",
        "clockwork.queues.acted.max-attempts=1"})
class ClockworkDashboardSecuredTest {

    static final String USER = "ann";
    static final String PASSWORD = "ann-password-1";

    @SpringBootConfiguration(proxyBeanMethods = false)
    @EnableAutoConfiguration
    static class App {

        @Bean
        UserDetailsService users() {
            return new InMemoryUserDetailsManager(User.withUsername(USER).password("{noop}" + PASSWORD).roles("OPS")
                    .build());
        }

        @Bean
        SecurityFilterChain security(HttpSecurity http) throws Exception {
            return http.authorizeHttpRequests(a -> a.anyRequest().authenticated())
                    .httpBasic(Customizer.withDefaults())
                    // the dashboard checks its own CSRF token on every action; Spring Security's would refuse it
                    .csrf(c -> c.ignoringRequestMatchers("/clockwork/**"))
                    .build();
        }
    }

    @Value("${local.server.port}")
    int port;
    @Autowired
    ClockworkQueues queues;
    @Autowired
    @Qualifier(ClockworkDashboardAutoConfiguration.SERVLET_BEAN)
    ServletRegistrationBean<?> servlet;

    /** Leaves {@code dead} dead letters, then offers {@code ready} ready and {@code delayed} delayed messages. */
    static DelayedQueue<String> fill(ClockworkQueues queues, String name, int dead, int ready, int delayed)
            throws InterruptedException {
        DelayedQueue<String> q = queues.queue(name, String.class);
        for (int i = 0; i < dead; i++) {
            q.offer("dead-" + i, Duration.ZERO);
            q.poll(Duration.ofSeconds(5)).nack(Duration.ZERO); // max-attempts 1: dead at once
        }
        for (int i = 0; i < ready; i++) {
            q.offer("ready-" + i, Duration.ZERO);
        }
        for (int i = 0; i < delayed; i++) {
            q.offer("delayed-" + i, Duration.ofHours(1));
        }
        return q;
    }

    @Test
    void isAServletOfTheApplicationUnderThePath() {
        assertThat(servlet.getUrlMappings()).containsExactly("/clockwork/*");
    }

    @Test
    void requestsWithoutTheApplicationsLoginAreRefusedByItsSecurity() throws Exception {
        DelayedQueue<String> q = fill(queues, "guarded", 0, 1, 0);
        DashboardClient nobody = new DashboardClient(port, null, null);
        HttpResponse<String> page = nobody.get("/clockwork/");
        assertThat(page.statusCode()).isEqualTo(401);
        assertThat(page.headers().firstValue("WWW-Authenticate")).hasValueSatisfying(v -> assertThat(v)
                .startsWith("Basic"));
        assertThat(page.body()).doesNotContain("guarded");
        assertThat(new DashboardClient(port, USER, "wrong-password").get("/clockwork/").statusCode()).isEqualTo(401);
        assertThat(nobody.post("/clockwork/action", "queue=guarded&action=purge&confirm=yes").statusCode())
                .isEqualTo(401);
        assertThat(q.stats().ready()).isEqualTo(1);
    }

    @Test
    void theSignedInUserSeesTheApplicationsQueuesWithTheirCountsAndNoSecondLogin() throws Exception {
        DelayedQueue<String> q = fill(queues, "shown", 1, 2, 3);
        QueueStats stats = q.stats();
        assertThat(stats.dead()).isEqualTo(1);

        HttpResponse<String> page = new DashboardClient(port, USER, PASSWORD).get("/clockwork/");

        assertThat(page.statusCode()).isEqualTo(200);
        assertThat(page.body()).contains("<span class=\"user\">" + USER + "</span>").doesNotContain("Sign out")
                .contains("href=\"/clockwork/queue?name=shown\"");
        Map<String, String> row = DashboardClient.row(page.body(), "shown");
        assertThat(row).containsEntry("delayed", String.valueOf(stats.delayed()))
                .containsEntry("ready", String.valueOf(stats.ready()))
                .containsEntry("in-flight", String.valueOf(stats.inFlight()))
                .containsEntry("dead", String.valueOf(stats.dead()));
        assertThat(row).containsEntry("delayed", "3").containsEntry("ready", "2").containsEntry("dead", "1");
        assertThat(page.headers().allValues("Set-Cookie")).anySatisfy(c -> assertThat(c)
                .startsWith("clockwork_dashboard=").contains("Path=/clockwork").contains("HttpOnly"));
    }

    @Test
    void anActionNeedsTheDashboardsCsrfTokenAndActsWithIt() throws Exception {
        DelayedQueue<String> q = fill(queues, "acted", 2, 0, 0);
        DashboardClient ann = new DashboardClient(port, USER, PASSWORD);
        HttpResponse<String> dead = ann.get("/clockwork/queue?name=acted&state=dead");
        assertThat(dead.statusCode()).isEqualTo(200);
        assertThat(dead.body()).contains("/clockwork/confirm?queue=acted&amp;action=requeue-all");

        HttpResponse<String> forged = ann.post("/clockwork/action", "queue=acted&action=requeue-all&confirm=yes");
        assertThat(forged.statusCode()).isEqualTo(403);
        assertThat(forged.body()).contains("CSRF");
        assertThat(ann.post("/clockwork/action", "_csrf=not-the-token&queue=acted&action=purge&confirm=yes")
                .statusCode()).isEqualTo(403);
        assertThat(q.stats().dead()).as("refused actions change nothing").isEqualTo(2);

        HttpResponse<String> acted = ann.post("/clockwork/action", "_csrf=" + DashboardClient.csrf(dead.body())
                + "&queue=acted&action=requeue-all&confirm=yes");
        assertThat(acted.statusCode()).isEqualTo(302);
        assertThat(acted.headers().firstValue("Location")).hasValueSatisfying(l -> assertThat(l)
                .contains("/clockwork/queue?name=acted"));
        assertThat(q.stats().dead()).isZero();
        assertThat(q.stats().ready()).isEqualTo(2);
    }
}
