package io.ttlstreams.query;

import io.ttlstreams.http.Json;
import java.time.Duration;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.time.temporal.ChronoUnit;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The parameters of the schedule queries, read and bounded: instants, durations and buckets. Each failure is an
 * {@link IllegalArgumentException} naming the parameter, which the server answers with 400.
 */
final class QueryParameters {

    /** The longest bucket: with {@link ScheduleHistogram#MAX_BUCKETS} of them, 1,440 years. */
    static final Duration MAX_BUCKET = Duration.ofDays(366);
    /**
     * The earliest and latest instants {@code from} and {@code to} may name (four-digit years): any two of them are
     * less than 10^15 ms apart, so that no sum or difference of them and a bucket overflows.
     */
    static final Instant EARLIEST = Instant.parse("0000-01-01T00:00:00Z");

    static final Instant LATEST = Instant.parse("9999-12-31T23:59:59.999Z");

    private static final Pattern SHORT_DURATION = Pattern.compile("(\\d+)(ms|s|m|h|d)");
    private static final Map<String, ChronoUnit> SHORT_UNITS = Map.of(
            "ms", ChronoUnit.MILLIS,
            "s", ChronoUnit.SECONDS,
            "m", ChronoUnit.MINUTES,
            "h", ChronoUnit.HOURS,
            "d", ChronoUnit.DAYS);
    /** More digits than this are beyond {@link #MAX_BUCKET} in any unit, and beyond a long in some. */
    private static final int MAX_SHORT_DURATION_DIGITS = 12;
    /** An echoed parameter is cut to this many characters. */
    private static final int MAX_ECHOED = 64;

    private QueryParameters() {}

    /**
     * An ISO-8601 instant ({@code 2026-01-01T00:00:00Z}) as epoch milliseconds.
     *
     * @throws IllegalArgumentException otherwise
     */
    static long instant(String parameter, String text) {
        Instant instant;
        try {
            instant = Instant.parse(text);
        } catch (DateTimeParseException e) {
            throw new IllegalArgumentException(
                    parameter + ": " + echoed(text) + " is not an ISO-8601 instant such as 2026-01-01T00:00:00Z", e);
        }
        if (instant.isBefore(EARLIEST) || instant.isAfter(LATEST)) {
            throw new IllegalArgumentException(
                    parameter + ": " + echoed(text) + " is outside " + EARLIEST + ".." + LATEST);
        }
        return instant.toEpochMilli();
    }

    /**
     * The {@code bucket} parameter: an ISO-8601 duration ({@code PT5M}) or a short one, a whole number and ms, s, m, h
     * or d ({@code 5m}), from 1 ms to {@link #MAX_BUCKET}.
     *
     * @throws IllegalArgumentException otherwise, naming the parameter
     */
    static Duration bucket(String text) {
        Matcher shortForm = SHORT_DURATION.matcher(text.strip().toLowerCase(Locale.ROOT));
        Duration bucket;
        if (shortForm.matches() && shortForm.group(1).length() > MAX_SHORT_DURATION_DIGITS) {
            throw new IllegalArgumentException("bucket: " + echoed(text) + " is too long a duration");
        }
        try {
            bucket = shortForm.matches()
                    ? Duration.of(Long.parseLong(shortForm.group(1)), SHORT_UNITS.get(shortForm.group(2)))
                    : Duration.parse(text);
        } catch (DateTimeParseException | ArithmeticException e) {
            throw new IllegalArgumentException(
                    "bucket: " + echoed(text) + " is not a duration such as 30s, 5m, 1h or PT5M", e);
        }
        if (bucket.compareTo(Duration.ofMillis(1)) < 0 || bucket.compareTo(MAX_BUCKET) > 0) {
            throw new IllegalArgumentException(
                    "bucket: " + echoed(text) + " is not between 1ms and " + MAX_BUCKET.toDays() + "d");
        }
        return bucket;
    }

    /** A parameter's text as an error message quotes it: cut, and written by {@link Json} like any text. */
    private static String echoed(String text) {
        return "'" + (text.length() <= MAX_ECHOED ? text : text.substring(0, MAX_ECHOED) + "...") + "'";
    }
}
