package io.ttlstreams.rules;

import java.math.BigDecimal;
import java.math.RoundingMode;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;
import java.util.function.Supplier;
import org.bson.BsonDocument;
import org.bson.BsonValue;

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

    private FieldExpiry() {}

    static ExpiryDecision evaluate(TtlRule rule, BsonDocument document) {
        String field = rule.field();
        List<BsonValue> values = BsonPaths.resolve(document, field);
        if (values.isEmpty()) {
            return ExpiryDecision.never(() -> rule.explain("field " + field + " is missing"), false);
        }
        boolean single = values.size() == 1 && !values.get(0).isArray();
        Reading earliest = single ? read(values.get(0), rule.fieldFormat()) : earliest(values, rule.fieldFormat());
        if (earliest == null) {
            String wanted = rule.fieldFormat() == FieldFormat.DATE ? "date" : "date or number";
            return ExpiryDecision.never(() -> rule.explain("field " + field + " is an array with no " + wanted), false);
        }
        Supplier<String> found =
                single ? () -> "field " + field + " is " : () -> "field " + field + " is an array; its earliest is ";
        if (earliest.failure() != null) {
            return ExpiryDecision.never(
                    () -> rule.explain(found.get() + earliest.failure().get()), false);
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
    private static Reading earliest(List<BsonValue> values, FieldFormat format) {
        List<BsonValue> candidates = new ArrayList<>();
        for (BsonValue value : values) {
            if (value.isArray()) {
                candidates.addAll(value.asArray());
            } else {
                candidates.add(value);
            }
        }
        Reading earliest = null;
        for (BsonValue candidate : candidates) {
            Reading reading = read(candidate, format);
            if (reading.failure() == null && (earliest == null || reading.millis() < earliest.millis())) {
                earliest = reading;
            }
        }
        return earliest;
    }

    private static Reading read(BsonValue value, FieldFormat format) {
        if (value.isDateTime()) {
            return Reading.instant(value, value.asDateTime().getValue(), () -> "a date", "");
        }
        boolean epochNumber = value.isInt32() || value.isInt64() || value.isDouble();
        if (format == FieldFormat.DATE) {
            String hint = epochNumber ? " (numbers count only with an epoch field format)" : "";
            return Reading.failed(() -> BsonTypes.withArticle(value) + ", not a date" + hint);
        }
        if (!epochNumber) {
            return Reading.failed(() -> BsonTypes.withArticle(value) + ", not a date or an int, long or double");
        }
        return readEpoch(value, format);
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
            BsonValue value, long millis, Supplier<String> what, Supplier<String> failure, String unitWarning) {

        static Reading instant(BsonValue value, long millis, Supplier<String> what, String unitWarning) {
            return new Reading(value, millis, what, null, unitWarning);
        }

        static Reading failed(Supplier<String> failure) {
            return new Reading(null, 0, null, failure, "");
        }

        /** The value read, then the instant itself, e.g. "a date (2026-01-01T00:00:00.000Z)". */
        String description() {
            return what.get() + " (" + Deadlines.format(Instant.ofEpochMilli(millis)) + ")";
        }
    }
}
