package io.clockwork.spring;

import static org.assertj.core.api.Assertions.assertThat;

import io.clockwork.queue.DelayedQueue;
import java.net.http.HttpResponse;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.context.annotation.Bean;
import org.springframework.security.config.Customizer;
import org.springframework.security.config.annotation.web.builders.HttpSecurity;
import org.springframework.security.core.userdetails.User;
import org.springframework.security.core.userdetails.UserDetailsService;
import org.springframework.security.provisioning.InMemoryUserDetailsManager;
import org.springframework.security.web.SecurityFilterChain;

/**
 * The dashboard with the starter's defaults (read-only) in a servlet application whose security lets anonymous
 * requests through: the dashboard itself refuses a request without a user, and refuses every action.
 */
@SpringBootTest(classes = ClockworkDashboardReadOnlyTest.App.class,
        webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT, properties = {
        "clockwork.dashboard.enabled=true",
        "clockwork.dashboard.path=/ops/queues/",
        "clockwork.queues.kept.max-attempts=1"})
class ClockworkDashboardReadOnlyTest {

    @SpringBootConfiguration(proxyBeanMethods = false)
    @EnableAutoConfiguration
    static class App {

        @Bean
        UserDetailsService users() {
            return new InMemoryUserDetailsManager(User.withUsername("bob").password("{noop}bob-password-1")
                    .roles("OPS").build());
        }

        @Bean
        SecurityFilterChain security(HttpSecurity http) throws Exception {
            return http.authorizeHttpRequests(a -> a.anyRequest().permitAll())
                    .httpBasic(Customizer.withDefaults())
                    .csrf(c -> c.ignoringRequestMatchers("/ops/queues/**"))
                    .build();
        }
    }

    @Value("${local.server.port}")
    int port;
    @Autowired
    ClockworkQueues queues;

    @Test
    void withoutAnAuthenticatedUserTheDashboardRefusesEvenWhereTheApplicationLetsTheRequestThrough()
            throws Exception {
        ClockworkDashboardSecuredTest.fill(queues, "anonymous", 0, 1, 0);
        HttpResponse<String> page = new DashboardClient(port, null, null).get("/ops/queues/");
        assertThat(page.statusCode()).isEqualTo(401);
        assertThat(page.body()).contains("Sign in to the application first").doesNotContain("anonymous");
    }

    @Test
    void readOnlyByDefaultShowsNoActionAndRefusesEveryOne() throws Exception {
        DelayedQueue<String> q = ClockworkDashboardSecuredTest.fill(queues, "kept", 1, 0, 0);
        long dead = q.stats().dead();
        DashboardClient bob = new DashboardClient(port, "bob", "bob-password-1");

        HttpResponse<String> page = bob.get("/ops/queues/queue?name=kept&state=dead");
        assertThat(page.statusCode()).isEqualTo(200);
        assertThat(page.body()).contains("read-only").contains("<span class=\"user\">bob</span>")
                .doesNotContain("/confirm?");
        assertThat(bob.get("/ops/queues/confirm?queue=kept&action=purge").statusCode()).isEqualTo(403);
        HttpResponse<String> refused = bob.post("/ops/queues/action", "_csrf=" + DashboardClient.csrf(page.body())
                + "&queue=kept&action=purge&confirm=yes");
        assertThat(refused.statusCode()).isEqualTo(403);
        assertThat(refused.body()).contains("read-only");
        assertThat(q.stats().dead()).isEqualTo(dead).isPositive();
    }
}
