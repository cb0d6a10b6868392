package io.ttlstreams.config;

import io.ttlstreams.secrets.Redaction;
import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import javax.security.auth.login.AppConfigurationEntry;
import org.apache.kafka.clients.CommonClientConfigs;
import org.apache.kafka.common.config.ConfigException;
import org.apache.kafka.common.config.SaslConfigs;
import org.apache.kafka.common.config.SslConfigs;
import org.apache.kafka.common.config.types.Password;
import org.apache.kafka.common.security.JaasContext;
import org.apache.kafka.common.security.auth.SecurityProtocol;

/**
 * How the processor's Kafka clients authenticate to a secured cluster, read from the configuration's Kafka settings
 * ({@code security.protocol}, {@code sasl.*}, {@code ssl.*}; {@code sasl.jaas.config} usually a config provider
 * reference to the user's secret), checked once, and said without a secret.
 *
 * <p>The settings reach every client the processor makes as they are: Kafka Streams' consumers, producers and admin
 * client, the start-up probe and topic check, the operations surface's admin client, and the producers of {@code
 * resync} and {@code approve}, each of which takes the common client settings of the configuration (and its {@code
 * producer.}/{@code admin.} overrides, as Kafka Streams does). What this class adds is the check at start-up, so that a
 * half-configured client fails naming the option instead of deep in Kafka's login code, and the name of the user the
 * clients authenticate as, which start-up logs and an authorization failure names ({@code AccessDenied}).
 *
 * @param mechanism the SASL mechanism; null unless the protocol authenticates with SASL
 * @param user the user name the clients log in with ({@code username} of the JAAS line); empty when the settings name
 *     none
 */
public record KafkaClientSecurity(SecurityProtocol protocol, String mechanism, Optional<String> user) {

    /** The SASL mechanisms whose JAAS line names a user with {@code username="..."} and a {@code password}. */
    private static final List<String> USER_PASSWORD_MECHANISMS = List.of("PLAIN", "SCRAM-SHA-256", "SCRAM-SHA-512");

    /** The system property naming a JAAS file, Kafka's alternative to {@code sasl.jaas.config}. */
    private static final String JAAS_FILE_PROPERTY = "java.security.auth.login.config";

    /**
     * The client security of {@code config}'s Kafka settings, checked.
     *
     * @throws ConfigException naming the option when the settings cannot work: an unknown protocol, a SASL protocol
     *     without a JAAS configuration, a JAAS configuration the protocol would never use or that lacks the user of
     *     its mechanism, a truststore or keystore file that is not there
     */
    public static KafkaClientSecurity of(TtlStreamsConfig config) {
        Properties settings = config.streamsProperties();
        String protocolName =
                settings.getProperty(CommonClientConfigs.SECURITY_PROTOCOL_CONFIG, SecurityProtocol.PLAINTEXT.name);
        SecurityProtocol protocol;
        try {
            protocol = SecurityProtocol.forName(protocolName.trim());
        } catch (IllegalArgumentException e) {
            throw new ConfigException(
                    CommonClientConfigs.SECURITY_PROTOCOL_CONFIG, protocolName, "one of " + SecurityProtocol.names());
        }
        boolean sasl = protocol == SecurityProtocol.SASL_PLAINTEXT || protocol == SecurityProtocol.SASL_SSL;
        String mechanism = settings.getProperty(SaslConfigs.SASL_MECHANISM, SaslConfigs.DEFAULT_SASL_MECHANISM)
                .trim()
                .toUpperCase(Locale.ROOT);
        Object jaas = settings.get(SaslConfigs.SASL_JAAS_CONFIG);
        String jaasText = jaas instanceof Password password ? password.value() : jaas == null ? null : jaas.toString();
        Optional<String> user = Optional.empty();
        if (jaasText != null && !jaasText.isBlank()) {
            if (!sasl) {
                throw new ConfigException(SaslConfigs.SASL_JAAS_CONFIG + " is set but "
                        + CommonClientConfigs.SECURITY_PROTOCOL_CONFIG + " is " + protocol.name
                        + ", which does not authenticate with SASL, so the credentials would never be used: set "
                        + CommonClientConfigs.SECURITY_PROTOCOL_CONFIG + " to SASL_SSL (or SASL_PLAINTEXT)");
            }
            user = userOf(jaasText, mechanism);
        } else if (sasl && System.getProperty(JAAS_FILE_PROPERTY) == null) {
            throw new ConfigException(CommonClientConfigs.SECURITY_PROTOCOL_CONFIG + " is " + protocol.name
                    + ", which authenticates with SASL (" + SaslConfigs.SASL_MECHANISM + " " + mechanism + "), but "
                    + SaslConfigs.SASL_JAAS_CONFIG + " is not set: set it to the user's JAAS line, such as the "
                    + SaslConfigs.SASL_JAAS_CONFIG + " of a Strimzi KafkaUser's Secret, through a config provider"
                    + " (${file:...} or ${directory:...}) so that the password stays out of the configuration");
        }
        for (String location :
                List.of(SslConfigs.SSL_TRUSTSTORE_LOCATION_CONFIG, SslConfigs.SSL_KEYSTORE_LOCATION_CONFIG)) {
            String file = settings.getProperty(location);
            if (file != null && !file.isBlank() && !readable(file)) {
                throw new ConfigException(location, file, "no readable file there");
            }
        }
        return new KafkaClientSecurity(protocol, sasl ? mechanism : null, user);
    }

    /**
     * The {@code username} of a JAAS line, checked to be one Kafka's client can log in with.
     *
     * @throws ConfigException naming {@code sasl.jaas.config}, never quoting it
     */
    private static Optional<String> userOf(String jaas, String mechanism) {
        List<AppConfigurationEntry> entries;
        try {
            entries = JaasContext.loadClientContext(Map.of(SaslConfigs.SASL_JAAS_CONFIG, new Password(jaas)))
                    .configurationEntries();
        } catch (IllegalArgumentException | SecurityException e) {
            // Kafka's parser says what is wrong without quoting the line; redacted all the same.
            throw new ConfigException(SaslConfigs.SASL_JAAS_CONFIG + " is not a JAAS configuration Kafka's client can"
                    + " use (LoginModule required key=\"value\" ...;): " + Redaction.redact(e.getMessage()));
        }
        Map<String, ?> options = entries.get(0).getOptions();
        Object username = options.get("username");
        if (USER_PASSWORD_MECHANISMS.contains(mechanism)
                && (username == null || username.toString().isBlank() || options.get("password") == null)) {
            throw new ConfigException(SaslConfigs.SASL_JAAS_CONFIG + " names no username=\"...\" and password=\"...\","
                    + " which " + SaslConfigs.SASL_MECHANISM + " " + mechanism + " logs in with");
        }
        return username == null ? Optional.empty() : Optional.of(username.toString());
    }

    private static boolean readable(String file) {
        try {
            return Files.isReadable(Path.of(file));
        } catch (InvalidPathException e) {
            return false;
        }
    }

    /** The principal Kafka's ACLs name for {@link #user()}: {@code User:<name>}. */
    public Optional<String> principal() {
        return user.map(name -> "User:" + name);
    }

    /**
     * What the clients do, for people and logs, without a secret: {@code SASL_SSL, SCRAM-SHA-512, as
     * User:ttl-processor}, or {@code PLAINTEXT (no authentication, no encryption)}.
     */
    public String describe() {
        return switch (protocol) {
            case PLAINTEXT -> protocol.name + " (no authentication, no encryption)";
            case SSL -> protocol.name + " (TLS; the principal is the client certificate's, if any)";
            case SASL_PLAINTEXT, SASL_SSL ->
                protocol.name + ", " + mechanism
                        + principal().map(principal -> ", as " + principal).orElse("");
        };
    }

    @Override
    public String toString() {
        return describe();
    }
}
