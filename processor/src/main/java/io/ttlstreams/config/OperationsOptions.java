package io.ttlstreams.config;

import io.ttlstreams.contract.SigningKey;
import java.time.Duration;
import java.util.function.Consumer;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigDef.Importance;
import org.apache.kafka.common.config.ConfigDef.Range;
import org.apache.kafka.common.config.ConfigDef.Type;
import org.apache.kafka.common.config.types.Password;

/**
 * The options of operating the processor: how failures are handled (dying stream threads replaced, the largest
 * document key scheduled), the secrets that guard what it emits and serves (the key that signs delete commands, the
 * HTTP server's bearer token), the HTTP server (where it listens, its request timeout), the health checks' interval,
 * the log format, and how long start-up waits for Kafka and Kafka Connect.
 */
public final class OperationsOptions {

    public static final String THREAD_REPLACEMENTS_MAX_CONFIG = "ttl.thread.replacements.max";
    public static final String THREAD_REPLACEMENTS_MAX_DOC = "A stream thread that dies of an unexpected error is"
            + " replaced, resuming from its last commit, at most this many times within"
            + " ttl.thread.replacements.window.ms; one more failure stops the processor with a non-zero exit code,"
            + " for the orchestrator to restart it and an operator to notice. 0 stops at the first failure.";
    public static final int THREAD_REPLACEMENTS_MAX_DEFAULT = 3;

    public static final String THREAD_REPLACEMENTS_WINDOW_MS_CONFIG = "ttl.thread.replacements.window.ms";
    public static final String THREAD_REPLACEMENTS_WINDOW_MS_DOC =
            "The sliding window, in milliseconds, over which" + " ttl.thread.replacements.max counts thread failures.";
    public static final long THREAD_REPLACEMENTS_WINDOW_MS_DEFAULT = 300_000L;

    public static final String DOCUMENT_KEY_MAX_BYTES_CONFIG = "ttl.document.key.max.bytes";
    public static final String DOCUMENT_KEY_MAX_BYTES_DOC = "The largest document key, in bytes of BSON (as MongoDB's"
            + " $bsonSize counts), that ttl-streams schedules; a change event with a larger key is dead-lettered with"
            + " its size and never scheduled. A delete command carries the key twice, as extended JSON, and must fit"
            + " in one Kafka record; MongoDB itself allows _id values of up to the 16 MiB document limit. The"
            + " rendered source connectors drop such events already in the change stream (see connect-config/).";
    /** {@value #DOCUMENT_KEY_MAX_BYTES_CONFIG} unless configured: far above any real key, far below a record. */
    public static final int DOCUMENT_KEY_MAX_BYTES_DEFAULT = 16 * 1024;

    public static final String COMMAND_SIGNING_KEY_CONFIG = "ttl.command.signing.key";
    public static final String COMMAND_SIGNING_KEY_DOC = "Secret with which the processor signs every delete command"
            + " (HMAC-SHA256 over key and value, in the headers ttl.signature and ttl.signature.key.id), so that the"
            + " sink guard applies only commands the processor made. At least 32 bytes, e.g. from openssl rand -base64"
            + " 48. Keep it out of this file: with config.providers=file (and config.providers.file.class="
            + "org.apache.kafka.common.config.provider.FileConfigProvider) write ${file:/secrets/ttl-signing.properties:key},"
            + " or use the env provider. Unset: commands are unsigned, and a guarded sink refuses them.";

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
    public static final String HTTP_REQUEST_TIMEOUT_MS_DOC = "Milliseconds an HTTP connection may stay silent, and"
            + " the longest its request head may take to arrive whole from the connection's opening, before the server"
            + " closes it. A half-sent request holds no thread meanwhile, only one of the 256 connections the server"
            + " keeps open at most.";
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
    public static final String LOG_FORMAT_DEFAULT = "text";

    public static final String STARTUP_TIMEOUT_MS_CONFIG = "ttl.startup.timeout.ms";
    public static final String STARTUP_TIMEOUT_MS_DOC = "How long, in milliseconds, run waits at start-up for a broker"
            + " in bootstrap.servers to answer, and separately for Kafka Connect (ttl.connect.url) to accept the"
            + " connectors (retrying with a growing pause while it cannot be reached or answers 409 or 5xx). When"
            + " either does not happen in time, run exits with code 2 and one line naming the option to check.";
    public static final long STARTUP_TIMEOUT_MS_DEFAULT = 30_000L;

    private OperationsOptions() {}

    /** Defines the group of failure handling. */
    static void embedFailureHandlingInto(ConfigDef definition) {
        new OptionGroup(definition, "Failure handling")
                .define(
                        THREAD_REPLACEMENTS_MAX_CONFIG,
                        Type.INT,
                        THREAD_REPLACEMENTS_MAX_DEFAULT,
                        Range.atLeast(0),
                        Importance.MEDIUM,
                        THREAD_REPLACEMENTS_MAX_DOC)
                .define(
                        THREAD_REPLACEMENTS_WINDOW_MS_CONFIG,
                        Type.LONG,
                        THREAD_REPLACEMENTS_WINDOW_MS_DEFAULT,
                        Range.atLeast(1),
                        Importance.LOW,
                        THREAD_REPLACEMENTS_WINDOW_MS_DOC)
                .define(
                        DOCUMENT_KEY_MAX_BYTES_CONFIG,
                        Type.INT,
                        DOCUMENT_KEY_MAX_BYTES_DEFAULT,
                        // 64 bytes hold any ObjectId, UUID or short compound key; 16 MiB is MongoDB's document limit.
                        Range.between(64, 16 * 1024 * 1024),
                        Importance.LOW,
                        DOCUMENT_KEY_MAX_BYTES_DOC);
    }

    /** Defines the group of security: the key that signs delete commands. */
    static void embedSecurityInto(ConfigDef definition) {
        new OptionGroup(definition, "Security")
                .define(
                        COMMAND_SIGNING_KEY_CONFIG,
                        Type.PASSWORD,
                        null, // unsigned
                        secret(
                                "null or a secret of at least " + SigningKey.MIN_LENGTH_BYTES + " bytes",
                                SigningKey::of),
                        Importance.HIGH,
                        COMMAND_SIGNING_KEY_DOC);
    }

    /** Defines the group of the HTTP server, health checks and logs. */
    static void embedHttpInto(ConfigDef definition) {
        new OptionGroup(definition, "HTTP and operations")
                .define(
                        HTTP_PORT_CONFIG,
                        Type.INT,
                        HTTP_PORT_DEFAULT,
                        Range.between(0, 65535), // 0: a free port
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
                        secret(
                                "null or a token of at least " + HTTP_AUTH_TOKEN_MIN_LENGTH + " characters",
                                OperationsOptions::checkAuthToken),
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
                        ConfigDef.ValidString.in("text", "json"),
                        Importance.LOW,
                        LOG_FORMAT_DOC);
    }

    /** Defines the group of start-up. */
    static void embedStartupInto(ConfigDef definition) {
        new OptionGroup(definition, "Start-up")
                .define(
                        STARTUP_TIMEOUT_MS_CONFIG,
                        Type.LONG,
                        STARTUP_TIMEOUT_MS_DEFAULT,
                        // At most a day: a longer wait is a hang, not a start-up.
                        Range.between(1, Duration.ofDays(1).toMillis()),
                        Importance.MEDIUM,
                        STARTUP_TIMEOUT_MS_DOC);
    }

    /**
     * Checks a secret option's value with {@code check} when it is set. Kafka resolves config provider references
     * before it validates, so a reference still here is one nothing resolved, which {@code check} refuses.
     */
    private static ConfigDef.Validator secret(String validValues, Consumer<String> check) {
        return Validators.of(validValues, value -> {
            String secret = value == null ? "" : ((Password) value).value();
            if (!secret.isEmpty()) {
                check.accept(secret);
            }
        });
    }

    private static void checkAuthToken(String token) {
        if (SigningKey.isUnresolvedReference(token)) {
            throw new IllegalArgumentException("The token is an unresolved config provider reference; the"
                    + " configuration needs config.providers");
        }
        if (token.length() < HTTP_AUTH_TOKEN_MIN_LENGTH || !token.strip().equals(token)) {
            throw new IllegalArgumentException("A token needs at least " + HTTP_AUTH_TOKEN_MIN_LENGTH
                    + " characters and no surrounding spaces, this one has " + token.length()
                    + " (generate one with: openssl rand -base64 32)");
        }
    }
}
