package io.clockwork.spring;

import static org.assertj.core.api.Assertions.assertThat;

import io.clockwork.dashboard.Authenticator;
import io.clockwork.dashboard.Dashboard;
import io.clockwork.dashboard.QueueSource;
import java.time.Duration;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.context.runner.WebApplicationContextRunner;
import org.springframework.boot.web.servlet.ServletRegistrationBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/** When the starter mounts the dashboard, over which queues, and how it refuses a bad path (real contexts). */
class ClockworkDashboardAutoConfigurationTest {

    private final WebApplicationContextRunner web = new WebApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(ClockworkAutoConfiguration.class,
                    ClockworkDashboardAutoConfiguration.class));

    @Test
    void isNotMountedUnlessEnabled() {
        web.run(context -> assertThat(context).hasNotFailed().doesNotHaveBean(Dashboard.class)
                .doesNotHaveBean(ClockworkDashboardAutoConfiguration.SERVLET_BEAN));
    }

    @Test
    void isNotMountedOutsideAServletWebApplication() {
        new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(ClockworkAutoConfiguration.class,
                        ClockworkDashboardAutoConfiguration.class))
                .withPropertyValues("clockwork.dashboard.enabled=true")
                .run(context -> assertThat(context).hasNotFailed().doesNotHaveBean(Dashboard.class));
    }

    @Test
    void showsTheQueuesTheApplicationOpensAsItOpensThem() {
        web.withPropertyValues("clockwork.dashboard.enabled=true").run(context -> {
            assertThat(context).hasNotFailed().hasSingleBean(Dashboard.class);
            ServletRegistrationBean<?> servlet = context.getBean(ClockworkDashboardAutoConfiguration.SERVLET_BEAN,
                    ServletRegistrationBean.class);
            assertThat(servlet.getUrlMappings()).containsExactly("/clockwork/*");
            QueueSource source = context.getBean(QueueSource.class);
            assertThat(source.names()).isEmpty();
            ClockworkQueues queues = context.getBean(ClockworkQueues.class);
            queues.queue("later", String.class).offer("x", Duration.ofMinutes(1));
            assertThat(source.names()).containsExactly("later");
            assertThat(source.queue("later").orElseThrow().stats().delayed()).isEqualTo(1);
            assertThat(source.describe()).isEqualTo("in-process");
        });
    }

    @Configuration(proxyBeanMethods = false)
    static class OwnAuthenticator {
        static final Authenticator HEADER = request -> Optional.ofNullable(request.getHeader("X-User"));

        @Bean
        Authenticator authenticator() {
            return HEADER;
        }
    }

    @Test
    void backsOffForTheApplicationsOwnBeans() {
        web.withPropertyValues("clockwork.dashboard.enabled=true").withUserConfiguration(OwnAuthenticator.class)
                .run(context -> assertThat(context).hasNotFailed().getBean(Authenticator.class)
                        .isSameAs(OwnAuthenticator.HEADER));
    }

    @Test
    void aPathAtTheRootOrWithBadCharactersFailsTheStartNamingTheProperty() {
        for (String bad : new String[] {"/", "clockwork", "/a b", "//x"}) {
            web.withPropertyValues("clockwork.dashboard.enabled=true", "clockwork.dashboard.path=" + bad)
                    .run(context -> assertThat(context).hasFailed().getFailure().rootCause()
                            .isInstanceOf(IllegalArgumentException.class)
                            .hasMessageContaining("clockwork.dashboard.path").hasMessageContaining(bad));
        }
    }

    @Test
    void aServletContextPathFailsTheStartSayingWhy() {
        web.withPropertyValues("clockwork.dashboard.enabled=true", "server.servlet.context-path=/app")
                .run(context -> assertThat(context).hasFailed().getFailure().rootCause()
                        .isInstanceOf(IllegalStateException.class).hasMessageContaining("context-path")
                        .hasMessageContaining("/app"));
    }
}
