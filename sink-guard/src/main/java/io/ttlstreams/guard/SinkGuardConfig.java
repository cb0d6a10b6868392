package io.ttlstreams.guard;

import io.ttlstreams.contract.NamespacePattern;
import io.ttlstreams.contract.SignatureVerifier;
import io.ttlstreams.contract.SigningKey;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.kafka.common.config.AbstractConfig;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigDef.Importance;
import org.apache.kafka.common.config.ConfigDef.Type;
import org.apache.kafka.common.config.ConfigException;
import org.apache.kafka.common.config.types.Password;

/**
 * The {@link DeleteCommandGuard}'s options, under {@code transforms.<name>.} in the sink connector's configuration.
 * Every check happens when the guard is configured, so that a bad setting fails the task at start-up with the option
 * named, instead of letting commands through or parking every one of them.
 */
public final class SinkGuardConfig extends AbstractConfig {

    public static final String SIGNING_KEY_CONFIG = "signing.key";
    public static final String SIGNING_KEY_DOC = "The secret the processor signs delete commands with (its"
            + " ttl.command.signing.key), at least 32 bytes. Pass it through a config provider, e.g."
            + " ${file:/secrets/ttl-signing.properties:key}, so that it is stored in no connector configuration.";

    public static final String SIGNING_PREVIOUS_KEY_CONFIG = "signing.previous.key";
    public static final String SIGNING_PREVIOUS_KEY_DOC = "While keys rotate: the secret the processor signed with"
            + " before signing.key, still accepted so that commands already in the topic apply. Remove it once they"
            + " are.";

    public static final String ALLOW_UNSIGNED_CONFIG = "allow.unsigned";
    public static final String ALLOW_UNSIGNED_DOC = "Whether a command without a signature may pass (the other checks"
            + " still apply). Without signing.key the guard refuses to start unless this is true; with a key, it lets"
            + " unsigned commands through while a processor that does not sign yet is being upgraded. A signed"
            + " command is always verified.";

    public static final String ALLOWED_NAMESPACES_CONFIG = "allowed.namespaces";
    public static final String ALLOWED_NAMESPACES_DOC = "The namespaces commands may delete in, db.coll or db.*: the"
            + " TTL rules' namespaces (connect-config renders them). A command for any other namespace is refused.";

    public static final String MARK_FIELDS_CONFIG = "mark.fields";
    public static final String MARK_FIELDS_DOC = "The field each namespace's mark commands may set, as"
            + " namespace=field entries (db.coll=expiredAt or db.*=expiredAt): the rules whose action is mark"
            + " (connect-config renders them). A mark command for a namespace not listed here, or setting another"
            + " field, is refused; empty (the default) refuses every mark command.";

    public static final String CLOCK_SKEW_TOLERANCE_MS_CONFIG = "clock.skew.tolerance.ms";
    public static final String CLOCK_SKEW_TOLERANCE_MS_DOC = "How far, in milliseconds, a command's deadline or issue"
            + " time may lie ahead of the sink's clock (the processor's and the sink's clocks differ a little). A"
            + " command due later is refused, as none may delete before its deadline, and so is one issued later.";

    public static final String COMMAND_MAX_AGE_MS_CONFIG = "command.max.age.ms";
    public static final String COMMAND_MAX_AGE_MS_DOC = "How long, in milliseconds, a command stays valid after the"
            + " processor issued it (its issuedAt, which the signature covers); an older one is refused, so that a"
            + " recorded command cannot be replayed later. The default is twice the longest wait before the processor"
            + " re-emits an unconfirmed command (an hour, or its ttl.confirm.timeout.ms if longer), so that after a"
            + " sink outage of any length every document still being retried has a command in the backlog that is"
            + " still valid.";

    /** The default {@value #COMMAND_MAX_AGE_MS_CONFIG}: two hours. */
    public static final long COMMAND_MAX_AGE_MS_DEFAULT = 2 * 60 * 60 * 1000L;

    private static final ConfigDef DEFINITION = new ConfigDef()
            .define(SIGNING_KEY_CONFIG, Type.PASSWORD, null, Importance.HIGH, SIGNING_KEY_DOC)
            .define(SIGNING_PREVIOUS_KEY_CONFIG, Type.PASSWORD, null, Importance.MEDIUM, SIGNING_PREVIOUS_KEY_DOC)
            .define(ALLOW_UNSIGNED_CONFIG, Type.BOOLEAN, false, Importance.HIGH, ALLOW_UNSIGNED_DOC)
            .define(
                    ALLOWED_NAMESPACES_CONFIG,
                    Type.LIST,
                    ConfigDef.NO_DEFAULT_VALUE,
                    ConfigDef.LambdaValidator.with(SinkGuardConfig::checkNamespaces, () -> "db.coll or db.* entries"),
                    Importance.HIGH,
                    ALLOWED_NAMESPACES_DOC)
            .define(
                    MARK_FIELDS_CONFIG,
                    Type.LIST,
                    List.of(),
                    ConfigDef.LambdaValidator.with(SinkGuardConfig::checkMarkFields, () -> "db.coll=field entries"),
                    Importance.MEDIUM,
                    MARK_FIELDS_DOC)
            .define(
                    CLOCK_SKEW_TOLERANCE_MS_CONFIG,
                    Type.LONG,
                    5_000L,
                    ConfigDef.Range.atLeast(0),
                    Importance.LOW,
                    CLOCK_SKEW_TOLERANCE_MS_DOC)
            .define(
                    COMMAND_MAX_AGE_MS_CONFIG,
                    Type.LONG,
                    COMMAND_MAX_AGE_MS_DEFAULT,
                    ConfigDef.Range.atLeast(1),
                    Importance.MEDIUM,
                    COMMAND_MAX_AGE_MS_DOC);

    private final Optional<SignatureVerifier> verifier;
    private final List<NamespacePattern> allowedNamespaces;
    private final Map<NamespacePattern, String> markFields;

    /**
     * @throws ConfigException naming the option: a key shorter than 32 bytes or unresolved, a previous key without a
     *     current one, no key without {@code allow.unsigned=true}, or a missing or malformed allow-list
     */
    public SinkGuardConfig(Map<?, ?> props) {
        super(DEFINITION, props);
        Optional<SigningKey> current = key(SIGNING_KEY_CONFIG);
        Optional<SigningKey> previous = key(SIGNING_PREVIOUS_KEY_CONFIG);
        if (current.isEmpty() && previous.isPresent()) {
            throw new ConfigException(
                    SIGNING_PREVIOUS_KEY_CONFIG,
                    getPassword(SIGNING_PREVIOUS_KEY_CONFIG),
                    "A previous key needs a current one in " + SIGNING_KEY_CONFIG);
        }
        if (current.isEmpty() && !getBoolean(ALLOW_UNSIGNED_CONFIG)) {
            throw new ConfigException("The delete-command guard has no " + SIGNING_KEY_CONFIG + " to verify"
                    + " signatures with: set it (the processor's ttl.command.signing.key, through a config provider),"
                    + " or set " + ALLOW_UNSIGNED_CONFIG + "=true to apply unsigned commands knowingly");
        }
        List<SigningKey> keys = new ArrayList<>();
        current.ifPresent(keys::add);
        previous.ifPresent(keys::add);
        this.verifier = keys.isEmpty() ? Optional.empty() : Optional.of(new SignatureVerifier(keys));
        this.allowedNamespaces = getList(ALLOWED_NAMESPACES_CONFIG).stream()
                .map(NamespacePattern::parse)
                .toList();
        Map<NamespacePattern, String> marks = new LinkedHashMap<>();
        for (String entry : getList(MARK_FIELDS_CONFIG)) {
            int equals = entry.indexOf('=');
            marks.put(
                    NamespacePattern.parse(entry.substring(0, equals).trim()),
                    entry.substring(equals + 1).trim());
        }
        this.markFields = Collections.unmodifiableMap(marks);
    }

    /** The options, for Connect's validation and documentation; a copy. */
    public static ConfigDef configDef() {
        return new ConfigDef(DEFINITION);
    }

    /** The verifier of the configured keys; empty when there is none (then {@link #allowUnsigned()} is true). */
    public Optional<SignatureVerifier> verifier() {
        return verifier;
    }

    public boolean allowUnsigned() {
        return getBoolean(ALLOW_UNSIGNED_CONFIG);
    }

    public List<NamespacePattern> allowedNamespaces() {
        return allowedNamespaces;
    }

    /** The field mark commands may set, by namespace pattern ({@value #MARK_FIELDS_CONFIG}); empty by default. */
    public Map<NamespacePattern, String> markFields() {
        return markFields;
    }

    public long clockSkewToleranceMs() {
        return getLong(CLOCK_SKEW_TOLERANCE_MS_CONFIG);
    }

    public long commandMaxAgeMs() {
        return getLong(COMMAND_MAX_AGE_MS_CONFIG);
    }

    private Optional<SigningKey> key(String name) {
        Password secret = getPassword(name);
        if (secret == null || secret.value().isEmpty()) {
            return Optional.empty();
        }
        try {
            return Optional.of(SigningKey.of(secret.value()));
        } catch (IllegalArgumentException invalid) {
            throw new ConfigException(name, secret, invalid.getMessage());
        }
    }

    private static void checkMarkFields(String name, Object value) {
        for (Object entry : (List<?>) value) {
            String text = entry.toString().trim();
            int equals = text.indexOf('=');
            String field = equals < 0 ? "" : text.substring(equals + 1).trim();
            if (field.isEmpty() || field.startsWith("$") || field.contains(".$") || field.contains("..")) {
                throw new ConfigException(
                        name, value, "Each entry is namespace=field, with a field path, not '" + text + "'");
            }
            try {
                NamespacePattern.parse(text.substring(0, equals).trim());
            } catch (IllegalArgumentException invalid) {
                throw new ConfigException(name, value, invalid.getMessage());
            }
        }
    }

    private static void checkNamespaces(String name, Object value) {
        List<?> entries = (List<?>) value;
        if (entries == null || entries.isEmpty()) {
            throw new ConfigException(name, value, "List the namespaces commands may delete in (the TTL rules')");
        }
        for (Object entry : entries) {
            try {
                NamespacePattern.parse(entry.toString().trim());
            } catch (IllegalArgumentException invalid) {
                throw new ConfigException(name, value, invalid.getMessage());
            }
        }
    }
}
