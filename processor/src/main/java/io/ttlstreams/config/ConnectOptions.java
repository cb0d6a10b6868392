package io.ttlstreams.config;

import io.ttlstreams.secrets.BasicCredentials;
import java.net.URI;
import java.util.Optional;
import org.apache.kafka.common.config.AbstractConfig;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigDef.Importance;
import org.apache.kafka.common.config.ConfigDef.Type;
import org.apache.kafka.common.config.ConfigException;
import org.apache.kafka.common.config.types.Password;

/**
 * The options of the Kafka Connect cluster whose connectors ttl-streams manages: its REST URL and credentials, and
 * where its workers hold the connectors' Kafka users.
 */
public final class ConnectOptions {

    private static final String GROUP = "Kafka Connect";

    public static final String CONNECT_URL_CONFIG = "ttl.connect.url";
    public static final String CONNECT_URL_DOC = "REST URL of the Kafka Connect cluster whose connectors ttl-streams"
            + " manages; empty for none. User info (http://user:password@host:8083, percent-encoded) is sent as HTTP"
            + " Basic authentication and never printed.";
    public static final String CONNECT_URL_DEFAULT = "";

    public static final String CONNECT_USERNAME_CONFIG = "ttl.connect.username";
    public static final String CONNECT_USERNAME_DOC = "User name for HTTP Basic authentication to the Kafka Connect"
            + " REST API, with ttl.connect.password; instead of user info in ttl.connect.url, not besides it.";
    public static final String CONNECT_USERNAME_DEFAULT = "";

    public static final String CONNECT_PASSWORD_CONFIG = "ttl.connect.password";
    public static final String CONNECT_PASSWORD_DOC = "Password for HTTP Basic authentication to the Kafka Connect"
            + " REST API, with ttl.connect.username. Never printed or logged; a config provider reference such as"
            + " ${file:/secrets/connect.properties:password} keeps it out of this file.";

    public static final String CONNECT_KAFKA_USERS_DIR_CONFIG = "ttl.connect.kafka.users.dir";
    public static final String CONNECT_KAFKA_USERS_DIR_DOC = "Directory on the Kafka Connect workers with one"
            + " directory per Kafka user holding that user's sasl.jaas.config file, as a Strimzi KafkaUser's Secret"
            + " mounted there (e.g. /mnt/kafka-users/ttl-source/sasl.jaas.config). Set, each rendered connector runs"
            + " as its own user: the source connectors' producer as ttl-source, the sink's consumer, dead-letter"
            + " producer and admin client as ttl-sink, through <client>.override.sasl.jaas.config="
            + "${directory:<dir>/<user>:sasl.jaas.config}; the workers need config.providers.directory.class="
            + "org.apache.kafka.common.config.provider.DirectoryConfigProvider and"
            + " connector.client.config.override.policy=All. Empty: the connectors run as the workers' user.";
    public static final String CONNECT_KAFKA_USERS_DIR_DEFAULT = "";

    public static final String CONNECT_SINK_RECOVERY_MS_CONFIG = "ttl.connect.sink.recovery.ms";
    public static final String CONNECT_SINK_RECOVERY_MS_DOC = "How long, in milliseconds, the managed sink connector"
            + " must run without failing after a failure before ttl-streams counts it as writing again. While it"
            + " fails (MongoDB unreachable, no primary, a refused login: the sink's task fails with its commands"
            + " unapplied) and for this long after, ttl-streams restarts its failed task with backoff and re-emits no"
            + " unconfirmed delete command, spending none of ttl.confirm.max.attempts, and paces new ones"
            + " (ttl.outage.deletes.per.second). The same holds from the record time of each dead letter the sink"
            + " parks for a write-concern error or an unreachable MongoDB, until this long after the last. Keep it"
            + " above the sink's serverSelectionTimeoutMS (30 s by default), within which a restarted task that cannot"
            + " reach a primary fails again.";
    public static final long CONNECT_SINK_RECOVERY_MS_DEFAULT = 60_000L;

    private ConnectOptions() {}

    static void embedInto(ConfigDef definition) {
        new OptionGroup(definition, GROUP)
                .define(
                        CONNECT_URL_CONFIG,
                        Type.STRING,
                        CONNECT_URL_DEFAULT,
                        Validators.blankOr(Validators.httpUrl()),
                        Importance.MEDIUM,
                        CONNECT_URL_DOC)
                .define(
                        CONNECT_USERNAME_CONFIG,
                        Type.STRING,
                        CONNECT_USERNAME_DEFAULT,
                        null,
                        Importance.MEDIUM,
                        CONNECT_USERNAME_DOC)
                .define(CONNECT_PASSWORD_CONFIG, Type.PASSWORD, null, null, Importance.MEDIUM, CONNECT_PASSWORD_DOC)
                .define(
                        CONNECT_KAFKA_USERS_DIR_CONFIG,
                        Type.STRING,
                        CONNECT_KAFKA_USERS_DIR_DEFAULT,
                        Validators.blankOr(Validators.of("an absolute path", value -> {
                            String dir = value.toString();
                            if (!dir.startsWith("/") || dir.contains("}") || dir.contains(":")) {
                                throw new IllegalArgumentException("must be an absolute path (on the Connect workers),"
                                        + " without ':' or '}', which end a config provider reference");
                            }
                        })),
                        Importance.MEDIUM,
                        CONNECT_KAFKA_USERS_DIR_DOC)
                .define(
                        CONNECT_SINK_RECOVERY_MS_CONFIG,
                        Type.LONG,
                        CONNECT_SINK_RECOVERY_MS_DEFAULT,
                        ConfigDef.Range.atLeast(0),
                        Importance.LOW,
                        CONNECT_SINK_RECOVERY_MS_DOC);
    }

    /**
     * The credentials {@code config} gives for Kafka Connect: from the URL's user info or from the options, checking
     * that they come one way and complete.
     *
     * @throws ConfigException naming the options when both ways are used, or one option lacks the other
     */
    static Optional<BasicCredentials> credentials(AbstractConfig config) {
        Optional<URI> url =
                TtlStreamsConfig.nonEmpty(config.getString(CONNECT_URL_CONFIG)).map(URI::create);
        Optional<String> username = TtlStreamsConfig.nonEmpty(config.getString(CONNECT_USERNAME_CONFIG));
        Optional<Password> password = Optional.ofNullable(config.getPassword(CONNECT_PASSWORD_CONFIG))
                .filter(secret -> !secret.value().isEmpty());
        if (url.isEmpty()) {
            if (username.isPresent() || password.isPresent()) {
                throw new ConfigException(
                        (username.isPresent() ? CONNECT_USERNAME_CONFIG : CONNECT_PASSWORD_CONFIG) + " is set but "
                                + CONNECT_URL_CONFIG + " is not: name the Kafka Connect REST API to authenticate to");
            }
            return Optional.empty();
        }
        Optional<BasicCredentials> fromUrl = BasicCredentials.fromUserInfo(url.get());
        if (fromUrl.isPresent() && (username.isPresent() || password.isPresent())) {
            throw new ConfigException("Kafka Connect credentials are given twice, as user info in " + CONNECT_URL_CONFIG
                    + " and as " + CONNECT_USERNAME_CONFIG + "/" + CONNECT_PASSWORD_CONFIG + ": keep one");
        }
        if (username.isPresent() != password.isPresent()) {
            throw new ConfigException((username.isPresent() ? CONNECT_PASSWORD_CONFIG : CONNECT_USERNAME_CONFIG)
                    + " is missing: " + CONNECT_USERNAME_CONFIG + " and " + CONNECT_PASSWORD_CONFIG
                    + " are set together");
        }
        return fromUrl.or(() -> username.map(name -> new BasicCredentials(name, password.orElseThrow())));
    }
}
