package io.ttlstreams.config;

import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.regex.Pattern;
import org.apache.kafka.common.config.ConfigException;

/**
 * Where configuration values come from and which wins: the properties file (or the bundled configuration), then
 * environment variables prefixed {@value #ENVIRONMENT_PREFIX}, then {@code --set key=value} on the command line.
 * A later layer replaces a key of an earlier one; nothing else is merged.
 *
 * <p>An environment variable names its key as Confluent's images and streams-bootstrap do: the prefix is dropped,
 * the rest lower-cased, and each run of underscores becomes one character: {@code _} a dot, {@code __} an
 * underscore, {@code ___} a dash. So {@code TTL_STREAMS_BOOTSTRAP_SERVERS} sets {@code bootstrap.servers},
 * {@code TTL_STREAMS_TTL_HTTP_PORT} sets {@code ttl.http.port} and
 * {@code TTL_STREAMS_TTL_RULE_USER___SESSIONS_FIELD} sets {@code ttl.rule.user-sessions.field}. Names being
 * upper-case, a rule whose name has capitals cannot be reached from the environment.
 *
 * <p>{@link #load} and {@link #over} build the {@link TtlStreamsConfig} from the layers; a bad value set by a
 * variable is reported under the variable's name ({@link #attributed}).
 */
public final class ConfigLayers {

    /** The prefix of the environment variables that set options. */
    public static final String ENVIRONMENT_PREFIX = "TTL_STREAMS_";

    /** Variables of the launcher script and the image that share the prefix but are not options. */
    public static final Set<String> NOT_OPTIONS = Set.of("TTL_STREAMS_JAVA_OPTS");

    /** A run of underscores in a variable's name, which stands for one character of the key. */
    private static final Pattern UNDERSCORES = Pattern.compile("_+");

    private ConfigLayers() {}

    /**
     * Reads a Java properties file (UTF-8), then applies the environment's options and the command line's. Trailing
     * comments such as {@code key=value   # note} are removed when the {@code #} follows whitespace outside a
     * double-quoted JSON string; write {@code \#} to keep one.
     *
     * @param environment the process environment, usually {@link System#getenv()}
     * @param overrides {@code key=value} assignments from the command line
     * @throws ConfigException naming the file, variable, assignment or option that is wrong
     */
    public static TtlStreamsConfig load(Path propertiesFile, Map<String, String> environment, List<String> overrides) {
        return layered(PropertiesFiles.read(propertiesFile), environment, overrides);
    }

    /**
     * {@code base} with the environment's options and the command line's applied over it: for a bundled
     * configuration that has no file.
     */
    public static TtlStreamsConfig over(
            TtlStreamsConfig base, Map<String, String> environment, List<String> overrides) {
        return layered(base.originals(), environment, overrides);
    }

    /** {@code base}'s values, replaced by the environment's, replaced by the overrides (a repeated key: the last). */
    private static TtlStreamsConfig layered(Map<?, ?> base, Map<String, String> environment, List<String> overrides) {
        try {
            Map<String, Object> merged = new HashMap<>();
            base.forEach((key, value) -> merged.put(String.valueOf(key), value));
            merged.putAll(fromEnvironment(environment));
            merged.putAll(parseOverrides(overrides));
            return new TtlStreamsConfig(merged);
        } catch (ConfigException e) {
            throw attributed(e, environment, overrides);
        }
    }

    /**
     * {@code failure} with the environment variable named that set the option it names, when a variable did and no
     * {@code --set} replaced it: a typo in a variable is found by the variable's name, which is what the operator
     * wrote.
     */
    public static ConfigException attributed(
            ConfigException failure, Map<String, String> environment, List<String> overrides) {
        Map<String, String> fromCommandLine = parseOverrides(overrides);
        String message = String.valueOf(failure.getMessage());
        for (String variable : new java.util.TreeSet<>(environment.keySet())) {
            if (!variable.startsWith(ENVIRONMENT_PREFIX) || NOT_OPTIONS.contains(variable)) {
                continue;
            }
            String key = keyOf(variable);
            if (!fromCommandLine.containsKey(key)
                    && Pattern.compile("(^|[^a-z0-9._-])" + Pattern.quote(key) + "($|[^a-z0-9._-])")
                            .matcher(message)
                            .find()) {
                ConfigException attributed =
                        new ConfigException("Environment variable " + variable + " (" + key + "): " + message);
                attributed.initCause(failure);
                return attributed;
            }
        }
        return failure;
    }

    /**
     * The options the environment sets, by key.
     *
     * @throws ConfigException naming a variable whose name cannot be turned into a key
     */
    public static Map<String, String> fromEnvironment(Map<String, String> environment) {
        Map<String, String> options = new TreeMap<>();
        environment.forEach((variable, value) -> {
            if (variable.startsWith(ENVIRONMENT_PREFIX) && !NOT_OPTIONS.contains(variable)) {
                options.put(keyOf(variable), value);
            }
        });
        return options;
    }

    /**
     * The configuration key an environment variable sets.
     *
     * @throws ConfigException when the name has nothing after the prefix, starts or ends with an underscore, or has
     *     a run of four or more underscores
     */
    public static String keyOf(String variable) {
        String rest = variable.substring(ENVIRONMENT_PREFIX.length());
        if (rest.isEmpty() || rest.startsWith("_") || rest.endsWith("_")) {
            throw new ConfigException("Environment variable " + variable + " names no option: after "
                    + ENVIRONMENT_PREFIX + " write the key with '_' for '.', '__' for '_' and '___' for '-'");
        }
        return UNDERSCORES.matcher(rest.toLowerCase(Locale.ROOT)).replaceAll(run -> {
            int underscores = run.end() - run.start();
            return switch (underscores) {
                case 1 -> ".";
                case 2 -> "_";
                case 3 -> "-";
                default ->
                    throw new ConfigException("Environment variable " + variable + " has " + underscores
                            + " underscores in a row; '_' stands for '.', '__' for '_' and '___' for '-'");
            };
        });
    }

    /**
     * {@code key=value} assignments as a map; the value may contain '=' and may be empty.
     *
     * @throws ConfigException naming an assignment without '=' or without a key
     */
    public static Map<String, String> parseOverrides(List<String> assignments) {
        Map<String, String> options = new HashMap<>();
        for (String assignment : assignments) {
            int equals = assignment.indexOf('=');
            if (equals <= 0 || assignment.substring(0, equals).isBlank()) {
                throw new ConfigException(
                        "--set " + assignment + " is not key=value, such as --set ttl.http.port=9090");
            }
            options.put(assignment.substring(0, equals).strip(), assignment.substring(equals + 1));
        }
        return options;
    }
}
