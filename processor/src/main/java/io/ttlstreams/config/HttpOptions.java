package io.ttlstreams.config;

import io.ttlstreams.contract.SigningKey;
import java.util.List;
import java.util.Optional;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigDef.Importance;
import org.apache.kafka.common.config.ConfigDef.Range;
import org.apache.kafka.common.config.ConfigDef.Type;
import org.apache.kafka.common.config.ConfigException;
import org.apache.kafka.common.config.types.Password;

/**
 * The options of the HTTP server and operations: where the server listens, its request timeout and bearer token, the
 * health checks' interval and the log format.
 */
public final class HttpOptions {

    private static final String GROUP = "HTTP and operations";

    public static final String HTTP_PORT_CONFIG = "ttl.http.port";
    public static final String HTTP_PORT_DOC = "Port of the HTTP server: health checks, Prometheus metrics, schedule"
            + " queries and the status page; 0 picks a free port. The embedded stack uses a free port unless this is"
            + " set.";
    /** The HTTP port unless the configuration sets one; the Dockerfile, compose file and manifests expose it. */
    public static final int HTTP_PORT_DEFAULT = 8080;

    public static final String HTTP_BIND_ADDRESS_CONFIG = "ttl.http.bind.address";
    public static final String HTTP_BIND_ADDRESS_DOC = "Address the HTTP server listens on; 0.0.0.0 for every"
            + " interface. The embedded stack uses 127.0.0.1 unless this is set. Other instances reach this one at"
            + " Kafka Streams' application.server, which defaults to this address (this host's address for 0.0.0.0)"
            + " and the HTTP port.";
    public static final String HTTP_BIND_ADDRESS_DEFAULT = "0.0.0.0";

    public static final String HTTP_REQUEST_TIMEOUT_MS_CONFIG = "ttl.http.request.timeout.ms";
    public static final String HTTP_REQUEST_TIMEOUT_MS_DOC = "Milliseconds a client has to send a request's line and"
            + " headers once it started; a connection still sending after that is closed, so that half-sent requests"
            + " cannot hold the HTTP server's threads.";
    public static final long HTTP_REQUEST_TIMEOUT_MS_DEFAULT = 10_000L;

    public static final String HTTP_AUTH_TOKEN_CONFIG = "ttl.http.auth.token";
    /** The shortest {@value #HTTP_AUTH_TOKEN_CONFIG} accepted: 16 random characters are beyond guessing. */
    public static final int HTTP_AUTH_TOKEN_MIN_LENGTH = 16;

    public static final String HTTP_AUTH_TOKEN_DOC = "Bearer token the HTTP server asks for on /v1/* and the status"
            + " page (Authorization: Bearer <token>; a browser may send it as the password of HTTP Basic"
            + " authentication, any user name), and sends when it forwards a query to another instance: every"
            + " instance needs the same. At least " + HTTP_AUTH_TOKEN_MIN_LENGTH + " characters, e.g. from openssl rand"
            + " -base64 32; keep it out of this file with a config provider reference. Unset: no authentication.";

    public static final String HTTP_AUTH_PROBES_CONFIG = "ttl.http.auth.probes";
    public static final String HTTP_AUTH_PROBES_DOC = "Whether /health/live, /health/ready and"
            + " /health/dependencies ask for ttl.http.auth.token too (the probes must then send it, e.g. Kubernetes' httpHeaders).";
    public static final boolean HTTP_AUTH_PROBES_DEFAULT = false;

    public static final String HTTP_AUTH_METRICS_CONFIG = "ttl.http.auth.metrics";
    public static final String HTTP_AUTH_METRICS_DOC = "Whether /metrics asks for ttl.http.auth.token too (Prometheus"
            + " then needs authorization: credentials or bearer_token_file in its scrape configuration).";
    public static final boolean HTTP_AUTH_METRICS_DEFAULT = false;

    public static final String HEALTH_INTERVAL_MS_CONFIG = "ttl.health.interval.ms";
    public static final String HEALTH_INTERVAL_MS_DOC = "How often, in milliseconds, the status of the managed"
            + " Kafka Connect connectors and the freshness of the source topics are checked, for"
            + " /health/dependencies, /v1/status and metrics.";
    public static final long HEALTH_INTERVAL_MS_DEFAULT = 10_000L;

    public static final String HEALTH_SOURCE_STALE_MS_CONFIG = "ttl.health.source.stale.ms";
    public static final String HEALTH_SOURCE_STALE_MS_DOC = "Milliseconds a namespace's source may go without a"
            + " change event or heartbeat before /health/dependencies reports it (degraded, not unready): well above"
            + " the rendered connectors' heartbeat interval (10 s). Judged only for source profiles with heartbeats,"
            + " where a quiet collection still shows life; 0 never judges the sources.";
    public static final long HEALTH_SOURCE_STALE_MS_DEFAULT = 60_000L;

    public static final String LOG_FORMAT_CONFIG = "ttl.log.format";
    public static final String LOG_FORMAT_DOC = "text: one line per log event; json: one JSON object per line"
            + " (Elastic Common Schema, log4j's JSON Template Layout) for log shippers. Applied by run when the"
            + " configuration is read, before anything is logged.";
    /** The values of {@value #LOG_FORMAT_CONFIG}. */
    public static final List<String> LOG_FORMATS = List.of("text", "json");

    public static final String LOG_FORMAT_DEFAULT = "text";

    private HttpOptions() {}

    static void embedInto(ConfigDef definition) {
        new OptionGroup(definition, GROUP)
                .define(
                        HTTP_PORT_CONFIG,
                        Type.INT,
                        HTTP_PORT_DEFAULT,
                        Validators.port(),
                        Importance.MEDIUM,
                        HTTP_PORT_DOC)
                .define(
                        HTTP_BIND_ADDRESS_CONFIG,
                        Type.STRING,
                        HTTP_BIND_ADDRESS_DEFAULT,
                        Validators.host(),
                        Importance.MEDIUM,
                        HTTP_BIND_ADDRESS_DOC)
                .define(
                        HTTP_REQUEST_TIMEOUT_MS_CONFIG,
                        Type.LONG,
                        HTTP_REQUEST_TIMEOUT_MS_DEFAULT,
                        Range.between(1, 600_000),
                        Importance.LOW,
                        HTTP_REQUEST_TIMEOUT_MS_DOC)
                .define(
                        HTTP_AUTH_TOKEN_CONFIG,
                        Type.PASSWORD,
                        null, // no authentication
                        Validators.of(
                                "null or a token of at least " + HTTP_AUTH_TOKEN_MIN_LENGTH + " characters",
                                HttpOptions::checkAuthToken),
                        Importance.MEDIUM,
                        HTTP_AUTH_TOKEN_DOC)
                .define(
                        HTTP_AUTH_PROBES_CONFIG,
                        Type.BOOLEAN,
                        HTTP_AUTH_PROBES_DEFAULT,
                        null,
                        Importance.LOW,
                        HTTP_AUTH_PROBES_DOC)
                .define(
                        HTTP_AUTH_METRICS_CONFIG,
                        Type.BOOLEAN,
                        HTTP_AUTH_METRICS_DEFAULT,
                        null,
                        Importance.LOW,
                        HTTP_AUTH_METRICS_DOC)
                .define(
                        HEALTH_INTERVAL_MS_CONFIG,
                        Type.LONG,
                        HEALTH_INTERVAL_MS_DEFAULT,
                        Range.atLeast(100),
                        Importance.LOW,
                        HEALTH_INTERVAL_MS_DOC)
                .define(
                        HEALTH_SOURCE_STALE_MS_CONFIG,
                        Type.LONG,
                        HEALTH_SOURCE_STALE_MS_DEFAULT,
                        Range.atLeast(0),
                        Importance.LOW,
                        HEALTH_SOURCE_STALE_MS_DOC)
                .define(
                        LOG_FORMAT_CONFIG,
                        Type.STRING,
                        LOG_FORMAT_DEFAULT,
                        ConfigDef.ValidString.in(LOG_FORMATS.toArray(String[]::new)),
                        Importance.LOW,
                        LOG_FORMAT_DOC);
    }

    /** The length check; a config provider reference is checked once resolved, in {@link #authToken}. */
    private static void checkAuthToken(Object value) {
        String token = value == null ? "" : ((Password) value).value();
        if (!token.isEmpty() && !SigningKey.isUnresolvedReference(token)) {
            checkAuthTokenLength(token);
        }
    }

    private static void checkAuthTokenLength(String token) {
        if (token.length() < HTTP_AUTH_TOKEN_MIN_LENGTH || !token.strip().equals(token)) {
            throw new IllegalArgumentException("A token needs at least " + HTTP_AUTH_TOKEN_MIN_LENGTH
                    + " characters and no surrounding spaces, this one has " + token.length()
                    + " (generate one with: openssl rand -base64 32)");
        }
    }

    /**
     * The bearer token from the resolved {@value #HTTP_AUTH_TOKEN_CONFIG}; empty when unset.
     *
     * @throws ConfigException naming the option when the token is too short or an unresolved reference
     */
    static Optional<String> authToken(Password token) {
        if (token == null || token.value().isEmpty()) {
            return Optional.empty();
        }
        try {
            if (SigningKey.isUnresolvedReference(token.value())) {
                throw new IllegalArgumentException("The token is an unresolved config provider reference; the"
                        + " configuration needs config.providers");
            }
            checkAuthTokenLength(token.value());
            return Optional.of(token.value());
        } catch (IllegalArgumentException invalid) {
            throw new ConfigException(HTTP_AUTH_TOKEN_CONFIG, token, invalid.getMessage());
        }
    }
}
