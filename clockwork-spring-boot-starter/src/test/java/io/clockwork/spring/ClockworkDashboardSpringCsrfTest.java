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
 * The dashboard, actions allowed, in an application that leaves Spring Security's CSRF filter on for the dashboard's
 * path (as the README says not to): the page works, and every action is refused, since Spring Security does not
 * know the dashboard's token.
 */
@SpringBootTest(classes = ClockworkDashboardSpringCsrfTest.App.class,
        webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT, properties = {
        "clockwork.dashboard.enabled=true",
        "clockwork.dashboard.read-only=false",
        "clockwork.queues.csrf.max-attempts=1"})
class ClockworkDashboardSpringCsrfTest {

    @SpringBootConfiguration(proxyBeanMethods = false)
    @EnableAutoConfiguration
    static class App {

        @Bean
        UserDetailsService users() {
            return new InMemoryUserDetailsManager(User.withUsername("cy").password("{noop}cy-password-1")
                    .roles("OPS").build());
        }

        @Bean
        SecurityFilterChain security(HttpSecurity http) throws Exception {
            return http.authorizeHttpRequests(a -> a.anyRequest().authenticated())
                    .httpBasic(Customizer.withDefaults())
                    .build();
        }
    }

    @Value("${local.server.port}")
    int port;
    @Autowired
    ClockworkQueues queues;

    @Test
    void actionsCarryingTheDashboardsTokenAreRefusedBySpringSecuritysCsrfFilter() throws Exception {
        DelayedQueue<String> q = ClockworkDashboardSecuredTest.fill(queues, "csrf", 1, 0, 0);
        DashboardClient cy = new DashboardClient(port, "cy", "cy-password-1");
        HttpResponse<String> page = cy.get("/clockwork/queue?name=csrf&state=dead");
        assertThat(page.statusCode()).isEqualTo(200);
        assertThat(page.body()).contains("/clockwork/confirm?queue=csrf&amp;action=purge");

        HttpResponse<String> refused = cy.post("/clockwork/action", "_csrf=" + DashboardClient.csrf(page.body())
                + "&queue=csrf&action=purge&confirm=yes");
        // the CSRF filter runs before HTTP basic authenticates, so Spring Security answers as to nobody: 401
        assertThat(refused.statusCode()).isEqualTo(401);
        assertThat(refused.body()).doesNotContain("purged");
        assertThat(q.stats().dead()).isEqualTo(1);
    }
}
