package io.ttlstreams.config;

import io.ttlstreams.contract.SigningKey;
import java.util.Optional;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigDef.Importance;
import org.apache.kafka.common.config.ConfigDef.Type;
import org.apache.kafka.common.config.ConfigException;
import org.apache.kafka.common.config.types.Password;

/** The options of security: the key that signs delete commands for the sink guard. */
public final class SecurityOptions {

    private static final String GROUP = "Security";

    public static final String COMMAND_SIGNING_KEY_CONFIG = "ttl.command.signing.key";
    public static final String COMMAND_SIGNING_KEY_DOC = "Secret with which the processor signs every delete command"
            + " (HMAC-SHA256 over key and value, in the headers ttl.signature and ttl.signature.key.id), so that the"
            + " sink guard applies only commands the processor made. At least 32 bytes, e.g. from openssl rand -base64"
            + " 48. Keep it out of this file: with config.providers=file (and config.providers.file.class="
            + "org.apache.kafka.common.config.provider.FileConfigProvider) write ${file:/secrets/ttl-signing.properties:key},"
            + " or use the env provider. Unset: commands are unsigned, and a guarded sink refuses them.";

    private SecurityOptions() {}

    static void embedInto(ConfigDef definition) {
        new OptionGroup(definition, GROUP)
                .define(
                        COMMAND_SIGNING_KEY_CONFIG,
                        Type.PASSWORD,
                        null, // unsigned
                        Validators.of(
                                "null or a secret of at least " + SigningKey.MIN_LENGTH_BYTES + " bytes",
                                SecurityOptions::checkSigningKey),
                        Importance.HIGH,
                        COMMAND_SIGNING_KEY_DOC);
    }

    /**
     * The length check. A config provider reference passes here: the ConfigDef is first applied to the raw values
     * (to learn the rule names), and the resolved value is checked again, and an unresolved one refused, in
     * {@link #signingKey}.
     */
    private static void checkSigningKey(Object value) {
        String secret = value == null ? "" : ((Password) value).value();
        if (!secret.isEmpty() && !SigningKey.isUnresolvedReference(secret)) {
            SigningKey.of(secret);
        }
    }

    /**
     * The signing key from the resolved {@value #COMMAND_SIGNING_KEY_CONFIG}; empty when unset.
     *
     * @throws ConfigException naming the option when the secret is too short or an unresolved reference
     */
    static Optional<SigningKey> signingKey(Password secret) {
        if (secret == null || secret.value().isEmpty()) {
            return Optional.empty();
        }
        try {
            return Optional.of(SigningKey.of(secret.value()));
        } catch (IllegalArgumentException invalid) {
            throw new ConfigException(COMMAND_SIGNING_KEY_CONFIG, secret, invalid.getMessage());
        }
    }
}
