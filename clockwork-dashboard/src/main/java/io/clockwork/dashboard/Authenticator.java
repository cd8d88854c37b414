package io.clockwork.dashboard;

import jakarta.servlet.http.HttpServletRequest;
import java.security.Principal;
import java.util.Optional;

/**
 * Tells who makes a request, for a dashboard mounted in an application that authenticates its users itself (no
 * second login). Implementations are thread-safe: requests call it at once.
 */
@FunctionalInterface
public interface Authenticator {

    /**
     * @param request the request
     * @return the user's name, or empty if the request is not authenticated (the dashboard then refuses it)
     */
    Optional<String> user(HttpServletRequest request);

    /** @return an authenticator that trusts the servlet container's {@code getUserPrincipal()} */
    static Authenticator servletPrincipal() {
        return request -> Optional.ofNullable(request.getUserPrincipal()).map(Principal::getName);
    }
}
