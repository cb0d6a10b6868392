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

/** The options of the Kafka Connect cluster whose connectors ttl-streams manages: its REST URL and credentials. */
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
                .define(CONNECT_PASSWORD_CONFIG, Type.PASSWORD, null, null, Importance.MEDIUM, CONNECT_PASSWORD_DOC);
    }

    /** The credentials {@code config} gives for Kafka Connect, checked as {@link #credentials(Optional, Optional, Optional)}. */
    static Optional<BasicCredentials> credentials(AbstractConfig config) {
        return credentials(
                TtlStreamsConfig.nonEmpty(config.getString(CONNECT_URL_CONFIG)).map(URI::create),
                TtlStreamsConfig.nonEmpty(config.getString(CONNECT_USERNAME_CONFIG)),
                Optional.ofNullable(config.getPassword(CONNECT_PASSWORD_CONFIG))
                        .filter(password -> !password.value().isEmpty()));
    }

    /**
     * The credentials from the URL's user info or from the options, checking that they come one way and complete.
     *
     * @throws ConfigException naming the options when both ways are used, or one option lacks the other
     */
    static Optional<BasicCredentials> credentials(
            Optional<URI> url, Optional<String> username, Optional<Password> password) {
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
