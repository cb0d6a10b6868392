package io.ttlstreams.rules;

import java.math.BigDecimal;
import java.math.RoundingMode;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.OptionalLong;
import java.util.function.Supplier;
import org.bson.BsonDocument;
import org.bson.BsonValue;
import org.bson.types.Decimal128;

/**
 * Field mode: a MongoDB TTL index's semantics, plus DynamoDB-style epoch numbers when the rule asks for them. Reasons
 * are built only when asked for.
 */
final class FieldExpiry {

    /**
     * 1e11 is year 5138 as epoch seconds but March 1973 as epoch milliseconds, so a value on the wrong side of it
     * was most likely written in the other unit.
     */
    private static final double UNIT_MIX_UP_THRESHOLD = 1e11;

    /** The largest magnitude in milliseconds that a long holds (as a double, rounded down to stay inside). */
    private static final double MAX_MILLIS = 9.2e18;

    /** 1971-01-01: an epoch number before it is no deadline anyone meant, most likely seconds read as millis. */
    static final Instant EARLIEST_PLAUSIBLE = Instant.parse("1971-01-01T00:00:00Z");

    /** The end of year 9999: an epoch number after it is most likely millis read as seconds. */
    static final Instant LATEST_PLAUSIBLE = Instant.parse("9999-12-31T23:59:59.999Z");

    /** An epoch number further back than this before the document's change is ignored, as DynamoDB ignores it. */
    static final int MAX_PLAUSIBLE_AGE_YEARS = 5;

    private FieldExpiry() {}

    /**
     * @param time when the document changed (or was read): an epoch number more than {@value
     *     #MAX_PLAUSIBLE_AGE_YEARS} years before it is not scheduled
     */
    static ExpiryDecision evaluate(TtlRule rule, BsonDocument document, Instant time) {
        String field = rule.field();
        List<BsonValue> values = BsonPaths.resolve(document, field);
        if (values.isEmpty()) {
            return ExpiryDecision.never(() -> rule.explain("field " + field + " is missing"), false);
        }
        boolean single = values.size() == 1 && !values.get(0).isArray();
        long oldestPlausible = time.atOffset(ZoneOffset.UTC)
                .minusYears(MAX_PLAUSIBLE_AGE_YEARS)
                .toInstant()
                .toEpochMilli();
        Reading earliest = single
                ? read(values.get(0), rule.fieldFormat(), oldestPlausible)
                : earliest(values, rule.fieldFormat(), oldestPlausible);
        if (earliest == null) {
            String wanted = rule.fieldFormat() == FieldFormat.DATE ? "date" : "date or number";
            return ExpiryDecision.never(() -> rule.explain("field " + field + " is an array with no " + wanted), false);
        }
        Supplier<String> found =
                single ? () -> "field " + field + " is " : () -> "field " + field + " is an array; its earliest is ";
        if (earliest.failure() != null) {
            Supplier<String> reason =
                    () -> rule.explain(found.get() + earliest.failure().get());
            return earliest.implausible() ? ExpiryDecision.implausible(reason) : ExpiryDecision.never(reason, false);
        }
        Supplier<String> computation =
                () -> found.get() + earliest.description() + " + " + rule.expireAfterSeconds() + " s";
        OptionalLong deadline = Deadlines.plusSeconds(earliest.millis(), rule.expireAfterSeconds());
        if (deadline.isEmpty()) {
            return ExpiryDecision.never(() -> rule.explain(computation.get() + Deadlines.BEYOND_LAST_DATE), false);
        }
        // The value exactly as found, so the delete misses a document whose field changed in the meantime. Only
        // when the path crossed an array of subdocuments is there no single value; the earliest one then serves.
        BsonValue asFound = values.size() == 1 ? values.get(0) : earliest.value();
        BsonDocument condition = new BsonDocument(field, BsonPaths.pinned(asFound));
        return ExpiryDecision.expiring(
                rule.name(),
                Instant.ofEpochMilli(earliest.millis()),
                rule.expireAfterSeconds(),
                true,
                deadline.getAsLong(),
                condition,
                false,
                () -> rule.explain(computation.get()) + earliest.unitWarning());
    }

    /**
     * Like a TTL index on an array: the earliest date counts and other elements are ignored; {@code null} when no
     * element counts.
     */
    private static Reading earliest(List<BsonValue> values, FieldFormat format, long oldestPlausible) {
        Reading earliest = null;
        // An array itself reads as no date; its elements follow it.
        for (BsonValue candidate : BsonPaths.withElements(values)) {
            Reading reading = read(candidate, format, oldestPlausible);
            if (reading.failure() == null && (earliest == null || reading.millis() < earliest.millis())) {
                earliest = reading;
            }
        }
        return earliest;
    }

    private static Reading read(BsonValue value, FieldFormat format, long oldestPlausible) {
        if (value.isDateTime()) {
            return Reading.instant(value, value.asDateTime().getValue(), () -> "a date", "");
        }
        boolean epochNumber = BsonTypes.NUMBERS.contains(value.getBsonType());
        if (format == FieldFormat.DATE) {
            String hint = epochNumber ? " (numbers count only with an epoch field format)" : "";
            return Reading.failed(() -> BsonTypes.withArticle(value) + ", not a date" + hint);
        }
        if (!epochNumber) {
            return Reading.failed(
                    () -> BsonTypes.withArticle(value) + ", not a date or an int, long, double or decimal");
        }
        Reading reading = value.isDecimal128() ? readDecimal(value, format) : readEpoch(value, format);
        return reading.failure() == null ? plausible(reading, oldestPlausible) : reading;
    }

    /**
     * {@code reading}, or, when its instant cannot have been meant (before 1971, after year 9999, or more than
     * {@value #MAX_PLAUSIBLE_AGE_YEARS} years before the change), an implausible reading that schedules nothing: such a
     * value is far more often a unit mistake than a deadline, and deleting on it would delete at once.
     */
    private static Reading plausible(Reading reading, long oldestPlausible) {
        String problem;
        if (reading.millis() < EARLIEST_PLAUSIBLE.toEpochMilli()) {
            problem = "before 1971";
        } else if (reading.millis() > LATEST_PLAUSIBLE.toEpochMilli()) {
            problem = "after year 9999";
        } else if (reading.millis() < oldestPlausible) {
            problem = "more than " + MAX_PLAUSIBLE_AGE_YEARS + " years before the document's change";
        } else {
            return reading;
        }
        return Reading.implausible(() -> reading.description() + ", " + problem
                + ", which no epoch deadline means; not scheduled" + reading.unitWarning());
    }

    /** A Decimal128 epoch number, exact: MongoDB counts it as a number like any other. */
    private static Reading readDecimal(BsonValue value, FieldFormat format) {
        Decimal128 decimal = value.asDecimal128().getValue();
        Supplier<String> shown = () -> format.configValue() + " " + decimal;
        if (decimal.isNaN() || decimal.isInfinite()) {
            return Reading.failed(() -> shown.get() + ", not a finite number");
        }
        // toString rather than bigDecimalValue(), which refuses negative zero.
        BigDecimal number = new BigDecimal(decimal.toString());
        BigDecimal millis = number.movePointRight(format == FieldFormat.EPOCH_SECONDS ? 3 : 0)
                .setScale(0, RoundingMode.CEILING);
        if (millis.abs().compareTo(BigDecimal.valueOf(MAX_MILLIS)) > 0) {
            return Reading.failed(() -> shown.get() + Deadlines.BEYOND_LAST_DATE);
        }
        return Reading.instant(value, millis.longValueExact(), shown, unitWarning(number.doubleValue(), format));
    }

    private static Reading readEpoch(BsonValue value, FieldFormat format) {
        double number = value.asNumber().doubleValue();
        Supplier<String> shown = () -> format.configValue() + " "
                + (value.isDouble() ? plain(number) : value.asNumber().longValue());
        if (!Double.isFinite(number)) {
            return Reading.failed(() -> shown.get() + ", not a finite number");
        }
        long millis;
        if (value.isDouble()) {
            double scaled = format == FieldFormat.EPOCH_SECONDS ? number * 1000 : number;
            if (Math.abs(scaled) > MAX_MILLIS) {
                return Reading.failed(() -> shown.get() + Deadlines.BEYOND_LAST_DATE);
            }
            // From the shortest decimal that reads back as the double (1.001 seconds is 1000.9999999999999 ms in
            // binary floating point, but "1.001" here), then rounded up: a fraction of a millisecond makes the
            // deadline that much later, never earlier.
            millis = BigDecimal.valueOf(number)
                    .movePointRight(format == FieldFormat.EPOCH_SECONDS ? 3 : 0)
                    .setScale(0, RoundingMode.CEILING)
                    .longValueExact();
        } else {
            long whole = value.asNumber().longValue();
            // Seconds to milliseconds is "epoch zero plus that many seconds", with the same overflow guard.
            OptionalLong exact =
                    format == FieldFormat.EPOCH_SECONDS ? Deadlines.plusSeconds(0, whole) : OptionalLong.of(whole);
            if (exact.isEmpty()) {
                return Reading.failed(() -> shown.get() + Deadlines.BEYOND_LAST_DATE);
            }
            millis = exact.getAsLong();
        }
        return Reading.instant(value, millis, shown, unitWarning(number, format));
    }

    private static String unitWarning(double number, FieldFormat format) {
        if (format == FieldFormat.EPOCH_SECONDS && number > UNIT_MIX_UP_THRESHOLD) {
            return "; the value looks like epoch-millis, which as seconds puts the deadline far in the future";
        }
        if (format == FieldFormat.EPOCH_MILLIS && Math.abs(number) < UNIT_MIX_UP_THRESHOLD) {
            return "; the value looks like epoch-seconds, which as milliseconds puts the deadline around 1970";
        }
        return "";
    }

    private static String plain(double number) {
        return Double.isFinite(number) ? BigDecimal.valueOf(number).toPlainString() : Double.toString(number);
    }

    /**
     * What one value says about expiry: an instant with what it was read as (and a warning when the unit looks
     * mistaken), or, when {@code failure} is set, why it does not expire. Texts are built only when a reason is.
     */
    private record Reading(
            BsonValue value,
            long millis,
            Supplier<String> what,
            Supplier<String> failure,
            boolean implausible,
            String unitWarning) {

        static Reading instant(BsonValue value, long millis, Supplier<String> what, String unitWarning) {
            return new Reading(value, millis, what, null, false, unitWarning);
        }

        static Reading failed(Supplier<String> failure) {
            return new Reading(null, 0, null, failure, false, "");
        }

        /** A number read as an instant that no epoch deadline means; {@code failure} says which and why. */
        static Reading implausible(Supplier<String> failure) {
            return new Reading(null, 0, null, failure, true, "");
        }

        /** The value read, then the instant itself, e.g. "a date (2026-01-01T00:00:00.000Z)". */
        String description() {
            return what.get() + " (" + Deadlines.format(Instant.ofEpochMilli(millis)) + ")";
        }
    }
}
