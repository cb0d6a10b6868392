package io.ttlstreams.rules;

import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import org.bson.BsonArray;
import org.bson.BsonDocument;
import org.bson.BsonType;
import org.bson.BsonValue;
import org.bson.types.Decimal128;

/**
 * Equality and ordering of BSON values with MongoDB's query semantics where they differ from
 * {@link BsonValue#equals}: numbers compare by value across int, long, double and decimal, and subdocuments are
 * equal only with the same fields in the same order.
 */
final class BsonComparison {

    private BsonComparison() {}

    /** Whether a query for {@code expected} matches {@code actual} by equality (before any array expansion). */
    static boolean queryEquals(BsonValue actual, BsonValue expected) {
        if (isNumber(actual) && isNumber(expected)) {
            return compareNumbers(actual, expected).map(c -> c == 0).orElse(false);
        }
        if (actual.isDocument() && expected.isDocument()) {
            return documentsEqual(actual.asDocument(), expected.asDocument());
        }
        if (actual.isArray() && expected.isArray()) {
            return arraysEqual(actual.asArray(), expected.asArray());
        }
        return actual.equals(expected);
    }

    /**
     * The order of two values of the same comparable class (numbers, strings or dates), as {@code $gt} and friends
     * see it; empty when they are of different classes or either is NaN, which no range query matches.
     */
    static Optional<Integer> compare(BsonValue actual, BsonValue bound) {
        if (isNumber(actual) && isNumber(bound)) {
            return compareNumbers(actual, bound);
        }
        if (actual.isString() && bound.isString()) {
            // UTF-8 byte order, which is how MongoDB's default (simple) collation orders strings.
            return Optional.of(Arrays.compareUnsigned(
                    actual.asString().getValue().getBytes(StandardCharsets.UTF_8),
                    bound.asString().getValue().getBytes(StandardCharsets.UTF_8)));
        }
        if (actual.isDateTime() && bound.isDateTime()) {
            return Optional.of(Long.compare(
                    actual.asDateTime().getValue(), bound.asDateTime().getValue()));
        }
        return Optional.empty();
    }

    /** Whether range operators can compare against {@code value} at all. */
    static boolean isRangeComparable(BsonValue value) {
        return isNumber(value) || value.isString() || value.isDateTime();
    }

    private static boolean isNumber(BsonValue value) {
        return BsonTypes.NUMBERS.contains(value.getBsonType());
    }

    /** Same field names in the same order, and values equal as a query sees them. */
    private static boolean documentsEqual(BsonDocument actual, BsonDocument expected) {
        return List.copyOf(actual.keySet()).equals(List.copyOf(expected.keySet()))
                && arraysEqual(
                        new BsonArray(List.copyOf(actual.values())), new BsonArray(List.copyOf(expected.values())));
    }

    private static boolean arraysEqual(BsonArray actual, BsonArray expected) {
        if (actual.size() != expected.size()) {
            return false;
        }
        for (int i = 0; i < actual.size(); i++) {
            if (!queryEquals(actual.get(i), expected.get(i))) {
                return false;
            }
        }
        return true;
    }

    /** NaN equals only NaN (as in MongoDB's equality) and is unordered against anything else. */
    private static Optional<Integer> compareNumbers(BsonValue left, BsonValue right) {
        NumericValue a = NumericValue.of(left);
        NumericValue b = NumericValue.of(right);
        if (a.isNaN() || b.isNaN()) {
            return a.isNaN() && b.isNaN() ? Optional.of(0) : Optional.empty();
        }
        if (a.rank != b.rank) {
            return Optional.of(Integer.compare(a.rank, b.rank));
        }
        return Optional.of(a.finite == null ? 0 : a.finite.compareTo(b.finite));
    }

    /**
     * A number on one scale: rank -1 is negative infinity, 0 a finite value (exact, as BigDecimal, so that large
     * longs and doubles compare correctly), 1 positive infinity, 2 NaN.
     */
    private record NumericValue(int rank, BigDecimal finite) {

        private static final int NAN_RANK = 2;

        static NumericValue of(BsonValue value) {
            if (value.getBsonType() == BsonType.DOUBLE) {
                double d = value.asDouble().getValue();
                if (Double.isNaN(d)) {
                    return new NumericValue(NAN_RANK, null);
                }
                return Double.isInfinite(d)
                        ? new NumericValue(d > 0 ? 1 : -1, null)
                        : new NumericValue(0, new BigDecimal(d));
            }
            if (value.getBsonType() == BsonType.DECIMAL128) {
                Decimal128 d = value.asDecimal128().getValue();
                if (d.isNaN()) {
                    return new NumericValue(NAN_RANK, null);
                }
                // toString rather than bigDecimalValue(), which refuses negative zero.
                return d.isInfinite()
                        ? new NumericValue(d.isNegative() ? -1 : 1, null)
                        : new NumericValue(0, new BigDecimal(d.toString()));
            }
            return new NumericValue(0, BigDecimal.valueOf(value.asNumber().longValue()));
        }

        boolean isNaN() {
            return rank == NAN_RANK;
        }
    }
}
