package io.ttlstreams.http;

import io.ttlstreams.config.TtlStreamsConfig;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.Base64;
import java.util.Optional;
import org.apache.commons.codec.digest.DigestUtils;

/**
 * The HTTP server's optional bearer token ({@code ttl.http.auth.token}): which paths ask for it, whether a request's
 * {@code Authorization} header carries it, and the header this instance sends when it forwards a query.
 *
 * <p>{@code Authorization: Bearer <token>} is the form for programs; {@code Basic} with the token as the password
 * (any user name) is accepted too, because a browser asks for and then sends only that, and the status page is
 * opened in one. Comparisons are over SHA-256 digests with {@link MessageDigest#isEqual}, in constant time whatever
 * the length of what was sent.
 */
final class HttpAuth {

    /** The realm in the challenges. */
    static final String REALM = "ttl-streams";

    private final Optional<byte[]> digest;
    private final Optional<String> token;
    private final boolean probes;
    private final boolean metrics;

    HttpAuth(TtlStreamsConfig config) {
        this.token = config.httpAuthToken();
        this.digest = token.map(DigestUtils::sha256);
        this.probes = config.httpAuthProbes();
        this.metrics = config.httpAuthMetrics();
    }

    /** Whether a request for {@code path} must carry the token. */
    boolean protects(String path) {
        if (digest.isEmpty()) {
            return false;
        }
        if (path.startsWith("/health/")) {
            return probes;
        }
        if (path.equals(OperationsServer.METRICS_PATH)) {
            return metrics;
        }
        return true;
    }

    /** Whether {@code authorization}, the request's header (null when absent), carries the token. */
    boolean accepts(String authorization) {
        if (digest.isEmpty()) {
            return true;
        }
        Optional<String> sent = credential(authorization);
        // Digest whatever was sent (or nothing) so that a missing header and a wrong token take the same path.
        return MessageDigest.isEqual(digest.get(), DigestUtils.sha256(sent.orElse(""))) && sent.isPresent();
    }

    /** The challenge of a 401 for {@code path}: Basic for the status page, so that a browser asks; Bearer else. */
    static String challenge(String path) {
        return path.equals("/") || path.equals("/index.html")
                ? "Basic realm=\"" + REALM + "\", charset=\"UTF-8\""
                : "Bearer realm=\"" + REALM + "\"";
    }

    /** The {@code Authorization} header that forwards a query to another instance; empty without a token. */
    Optional<String> forwardingHeader() {
        return token.map(value -> "Bearer " + value);
    }

    /** The token in a Bearer header, or the password in a Basic one. */
    private static Optional<String> credential(String authorization) {
        if (authorization == null) {
            return Optional.empty();
        }
        int space = authorization.indexOf(' ');
        if (space < 0) {
            return Optional.empty();
        }
        String scheme = authorization.substring(0, space);
        String value = authorization.substring(space + 1).strip();
        if (scheme.equalsIgnoreCase("Bearer")) {
            return Optional.of(value);
        }
        if (scheme.equalsIgnoreCase("Basic")) {
            try {
                String userAndPassword = new String(Base64.getDecoder().decode(value), StandardCharsets.UTF_8);
                int colon = userAndPassword.indexOf(':');
                return colon < 0 ? Optional.empty() : Optional.of(userAndPassword.substring(colon + 1));
            } catch (IllegalArgumentException notBase64) {
                return Optional.empty();
            }
        }
        return Optional.empty();
    }
}
