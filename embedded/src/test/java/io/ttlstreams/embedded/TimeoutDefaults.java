package io.ttlstreams.embedded;

import java.time.Duration;
import java.time.temporal.ChronoUnit;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * The default timeouts this module's {@code junit-platform.properties} gives JUnit, read where JUnit does not apply
 * them itself: an extension's callbacks (which start the stacks) and the check that no {@code @Timeout} raises them.
 */
public final class TimeoutDefaults {

    /** The bound of every test method without a {@code @Timeout} of its own. */
    public static final String TEST = "junit.jupiter.execution.timeout.default";
    /** The bound of every lifecycle method ({@code @BeforeAll} and the like) without a {@code @Timeout}. */
    public static final String LIFECYCLE = "junit.jupiter.execution.timeout.lifecycle.method.default";
    /** The thread the bounded methods run in. */
    public static final String THREAD_MODE = "junit.jupiter.execution.timeout.thread.mode.default";

    /** JUnit's syntax for these values: a positive number and an optional unit, seconds without one. */
    private static final Pattern DURATION =
            Pattern.compile("([1-9]\\d*) ?((?:[nμm]?s)|m|h|d)?", Pattern.CASE_INSENSITIVE);

    private static final Map<String, ChronoUnit> UNITS = Map.of(
            "ns", ChronoUnit.NANOS,
            "μs", ChronoUnit.MICROS,
            "ms", ChronoUnit.MILLIS,
            "s", ChronoUnit.SECONDS,
            "m", ChronoUnit.MINUTES,
            "h", ChronoUnit.HOURS,
            "d", ChronoUnit.DAYS);

    private TimeoutDefaults() {}

    /** Parses a timeout as JUnit does ({@code "5 m"}, {@code "300s"}, {@code "30"}). */
    public static Duration parse(String value) {
        Matcher matcher = DURATION.matcher(value.strip());
        if (!matcher.matches()) {
            throw new IllegalArgumentException("Not a JUnit timeout: '" + value + "'");
        }
        String unit = matcher.group(2) == null ? "s" : matcher.group(2).toLowerCase(Locale.ROOT);
        return Duration.of(Long.parseLong(matcher.group(1)), UNITS.get(unit));
    }

    /** The configured lifecycle-method bound, which also bounds what an extension does in its place. */
    public static Duration lifecycle(ExtensionContext context) {
        return context.getConfigurationParameter(LIFECYCLE, TimeoutDefaults::parse)
                .orElseThrow(
                        () -> new IllegalStateException(LIFECYCLE + " is not configured (junit-platform.properties)"));
    }
}
