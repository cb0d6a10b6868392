package io.ttlstreams.config;

import io.ttlstreams.contract.SigningKey;
import io.ttlstreams.secrets.Redaction;
import java.net.URI;
import java.net.URISyntaxException;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.function.Consumer;
import java.util.regex.Pattern;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigException;
import org.apache.kafka.common.config.types.Password;

/**
 * The validators this package's options share. Each check throws {@link IllegalArgumentException} with a plain
 * message; {@link #of} turns it into the {@link ConfigException} naming the option that Kafka's config machinery
 * expects, quoting the value redacted and abbreviated.
 */
final class Validators {

    /** Kafka's legal topic names: these characters, at most 249 of them, and neither "." nor "..". */
    private static final Pattern TOPIC = Pattern.compile("[a-zA-Z0-9._-]{1,249}");

    /** An error quotes at most this many characters of a value: enough to recognize it, not a page of braces. */
    static final int MAX_QUOTED_LENGTH = 200;
    /** Letters, digits, '.', '-', and ':' for IPv6; no port, no scheme, no path. */
    private static final Pattern HOST = Pattern.compile("[A-Za-z0-9.:-]+|\\[[0-9A-Fa-f:.]+]");

    private Validators() {}

    /**
     * A validator running {@code check} on the option's value.
     *
     * @param validValues what the reference documentation lists as valid values
     */
    static ConfigDef.Validator of(String validValues, Consumer<Object> check) {
        return ConfigDef.LambdaValidator.with(
                (name, value) -> {
                    try {
                        check.accept(value);
                    } catch (IllegalArgumentException invalid) {
                        throw new ConfigException(name, quoted(value), Redaction.redact(invalid.getMessage()));
                    }
                },
                () -> validValues);
    }

    /**
     * {@code value} as an error message may show it: credentials in URLs {@link Redaction redacted}, and cut after
     * {@value #MAX_QUOTED_LENGTH} characters, saying how long it was.
     */
    static String quoted(Object value) {
        String text = Redaction.redact(String.valueOf(value));
        return text.length() <= MAX_QUOTED_LENGTH
                ? text
                : text.substring(0, MAX_QUOTED_LENGTH) + "... (" + text.length() + " characters)";
    }

    /** {@code base}, but accepting an unset ({@code null}) value, for options whose default is "none". */
    static ConfigDef.Validator nullOr(ConfigDef.Validator base) {
        return ConfigDef.LambdaValidator.with(
                (name, value) -> {
                    if (value != null) {
                        base.ensureValid(name, value);
                    }
                },
                () -> "null or " + base);
    }

    /** {@code base}, but accepting an unset or blank string, for optional options users may leave empty. */
    static ConfigDef.Validator blankOr(ConfigDef.Validator base) {
        return ConfigDef.LambdaValidator.with(
                (name, value) -> {
                    if (value != null && !value.toString().isBlank()) {
                        base.ensureValid(name, value);
                    }
                },
                () -> "empty or " + base);
    }

    /**
     * {@code base} reporting errors under {@code prefix + name}. {@link ConfigDef#embed} strips the prefix before
     * it calls an embedded option's validator, which would leave users to guess which rule's option failed.
     */
    static ConfigDef.Validator reportingUnder(String prefix, ConfigDef.Validator base) {
        if (base == null || prefix.isEmpty()) {
            return base;
        }
        return ConfigDef.LambdaValidator.with((name, value) -> base.ensureValid(prefix + name, value), base::toString);
    }

    /** A legal Kafka topic name. */
    static ConfigDef.Validator topic() {
        return of("a Kafka topic name", value -> checkTopic((String) value));
    }

    /** Distinct legal Kafka topic names. */
    static ConfigDef.Validator topics() {
        return of(
                "distinct Kafka topic names", value -> distinct((List<?>) value).forEach(Validators::checkTopic));
    }

    /** An absolute http or https URL. */
    static ConfigDef.Validator httpUrl() {
        return of("an http(s) URL", value -> {
            try {
                URI uri = new URI((String) value);
                if ((!"http".equals(uri.getScheme()) && !"https".equals(uri.getScheme())) || uri.getHost() == null) {
                    throw new IllegalArgumentException("Must be an http:// or https:// URL with a host");
                }
            } catch (URISyntaxException e) {
                // The reason and index only: the exception's message quotes the URL, user info and all.
                throw new IllegalArgumentException("Not a URL: " + e.getReason() + " at index " + e.getIndex(), e);
            }
        });
    }

    /**
     * A MongoDB connection string, for a PASSWORD option: the scheme only, as the driver parses the rest when a resync
     * connects (a mongodb+srv:// string would cost a DNS lookup here), and errors never quote the value.
     */
    static ConfigDef.Validator mongodbUri() {
        return of("a mongodb:// or mongodb+srv:// connection string", value -> {
            String uri = value instanceof Password password ? password.value() : String.valueOf(value);
            if (SigningKey.isUnresolvedReference(uri)) {
                throw new IllegalArgumentException("An unresolved config provider reference; the configuration needs"
                        + " config.providers (e.g. config.providers=file with config.providers.file.class="
                        + "org.apache.kafka.common.config.provider.FileConfigProvider)");
            }
            if (!uri.isBlank() && !uri.startsWith("mongodb://") && !uri.startsWith("mongodb+srv://")) {
                throw new IllegalArgumentException(
                        "Must be a MongoDB connection string, mongodb://... or" + " mongodb+srv://...");
            }
        });
    }

    /** A host name or IP address, without port or scheme. */
    static ConfigDef.Validator host() {
        return of("a host name or IP address", value -> {
            String host = ((String) value).strip();
            if (host.isEmpty() || !HOST.matcher(host).matches()) {
                throw new IllegalArgumentException("Must be a host name or IP address, such as 0.0.0.0 or 127.0.0.1");
            }
        });
    }

    static void checkTopic(String topic) {
        if (!TOPIC.matcher(topic).matches() || topic.equals(".") || topic.equals("..")) {
            throw new IllegalArgumentException(
                    "'" + topic + "' is not a legal Kafka topic name (up to 249 of" + " a-z A-Z 0-9 . _ -)");
        }
    }

    /**
     * {@code values} as strings, after checking that none repeats; a repeated entry is a copy-paste slip that
     * would otherwise be silently collapsed.
     */
    static List<String> distinct(List<?> values) {
        Set<Object> seen = new HashSet<>();
        for (Object value : values) {
            if (!seen.add(value)) {
                throw new IllegalArgumentException("'" + value + "' is listed twice");
            }
        }
        return values.stream().map(String::valueOf).toList();
    }
}
