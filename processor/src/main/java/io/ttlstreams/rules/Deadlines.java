package io.ttlstreams.rules;

import java.time.Instant;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeFormatterBuilder;
import java.util.OptionalLong;

/** Deadline arithmetic in epoch milliseconds, the unit schedule keys store, and the one way instants are shown. */
public final class Deadlines {

    /**
     * Always with milliseconds, like MongoDB's own rendering of dates, so that reasons line up; and for every
     * instant, including those beyond year 999999999 that a calendar-based pattern refuses.
     */
    private static final DateTimeFormatter INSTANT_FORMAT =
            new DateTimeFormatterBuilder().appendInstant(3).toFormatter();

    /** How reasons end when {@link #plusSeconds} finds no deadline. */
    static final String BEYOND_LAST_DATE = ", beyond the last representable date";

    private Deadlines() {}

    /**
     * {@code baseMillis + seconds}, or empty when the sum leaves the range of a long (a date near the end of time
     * plus a TTL); such a document never expires rather than wrapping around into the past and being deleted.
     */
    public static OptionalLong plusSeconds(long baseMillis, long seconds) {
        try {
            return OptionalLong.of(Math.addExact(baseMillis, Math.multiplyExact(seconds, 1000L)));
        } catch (ArithmeticException overflow) {
            return OptionalLong.empty();
        }
    }

    /** {@link #plusSeconds(long, long)} from an instant, which may itself lie beyond the epoch-millisecond range. */
    static OptionalLong plusSeconds(Instant base, long seconds) {
        try {
            return plusSeconds(base.toEpochMilli(), seconds);
        } catch (ArithmeticException outOfRange) {
            return OptionalLong.empty();
        }
    }

    /** ISO-8601 UTC with exactly three fractional digits, e.g. {@code 2026-01-01T00:00:10.000Z}. */
    public static String format(Instant instant) {
        return INSTANT_FORMAT.format(instant);
    }
}
