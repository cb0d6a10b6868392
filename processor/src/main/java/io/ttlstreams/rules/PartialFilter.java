package io.ttlstreams.rules;

import io.ttlstreams.contract.Literals;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.function.IntPredicate;
import java.util.function.Predicate;
import org.bson.BsonDocument;
import org.bson.BsonType;
import org.bson.BsonValue;

/**
 * The subset of MongoDB's {@code partialFilterExpression} a rule can carry: only documents that match are scheduled.
 *
 * <p>Supported: equality ({@code {"status": "active"}} or {@code $eq}, on dotted paths, matching any element of an
 * array field, and {@code null} matching a missing field, as in MongoDB), {@code $exists}, {@code $gt},
 * {@code $gte}, {@code $lt}, {@code $lte} (between values of one class: numbers, strings or dates), {@code $type}
 * (aliases such as "date" or "number", or numeric codes), {@code $in}, {@code $and} and {@code $or} (which
 * MongoDB allows in a partial index since 6.0). Anything else is rejected
 * when the filter is parsed rather than silently matching nothing or everything.
 *
 * <p>Instances are immutable and thread-safe.
 */
public final class PartialFilter {

    private final BsonDocument expression;
    private final Predicate<BsonDocument> predicate;

    private PartialFilter(BsonDocument expression, Predicate<BsonDocument> predicate) {
        this.expression = expression;
        this.predicate = predicate;
    }

    /**
     * Compiles {@code expression}.
     *
     * @throws IllegalArgumentException naming the operator when the expression uses one this class does not support,
     *                                  or describing the malformed part
     */
    public static PartialFilter parse(BsonDocument expression) {
        BsonDocument copy = Objects.requireNonNull(expression, "expression").clone();
        return new PartialFilter(copy, compileFilter(copy));
    }

    /** Whether {@code document} matches the expression. */
    public boolean matches(BsonDocument document) {
        return predicate.test(document);
    }

    /** The expression as parsed; a copy, so that callers may embed it in a command they build. */
    public BsonDocument expression() {
        return expression.clone();
    }

    @Override
    public String toString() {
        return expression.toJson();
    }

    private static Predicate<BsonDocument> compileFilter(BsonDocument filter) {
        List<Predicate<BsonDocument>> clauses = new ArrayList<>();
        for (Map.Entry<String, BsonValue> entry : filter.entrySet()) {
            String key = entry.getKey();
            if (key.equals("$and")) {
                clauses.add(allOf(compileClauses(key, entry.getValue())));
            } else if (key.equals("$or")) {
                clauses.add(anyOf(compileClauses(key, entry.getValue())));
            } else if (key.startsWith("$")) {
                throw unsupported(key);
            } else {
                clauses.add(compileField(BsonPaths.validate(key), entry.getValue()));
            }
        }
        return allOf(clauses);
    }

    /** The clauses of {@code $and} or {@code $or}: a non-empty array of filter documents. */
    private static List<Predicate<BsonDocument>> compileClauses(String operator, BsonValue operand) {
        if (!operand.isArray() || operand.asArray().isEmpty()) {
            throw new IllegalArgumentException(
                    operator + " needs a non-empty array of filter documents, not " + BsonTypes.describe(operand));
        }
        List<Predicate<BsonDocument>> clauses = new ArrayList<>();
        for (BsonValue element : operand.asArray()) {
            if (!element.isDocument()) {
                throw new IllegalArgumentException(
                        operator + " elements must be filter documents, not " + BsonTypes.describe(element));
            }
            clauses.add(compileFilter(element.asDocument()));
        }
        return clauses;
    }

    /** As in MongoDB, a value is an operator document when its first field name starts with {@code $}. */
    private static Predicate<BsonDocument> compileField(String path, BsonValue condition) {
        if (!condition.isDocument()
                || condition.asDocument().isEmpty()
                || !condition.asDocument().getFirstKey().startsWith("$")) {
            return field(path, equalTo(checkLiteral(condition)));
        }
        List<Predicate<BsonDocument>> clauses = new ArrayList<>();
        for (Map.Entry<String, BsonValue> operator : condition.asDocument().entrySet()) {
            clauses.add(compileOperator(path, operator.getKey(), operator.getValue()));
        }
        return allOf(clauses);
    }

    private static Predicate<BsonDocument> compileOperator(String path, String operator, BsonValue operand) {
        switch (operator) {
            case "$eq":
                return field(path, equalTo(checkLiteral(operand)));
            case "$exists":
                boolean shouldExist = truthy(operand);
                return document -> BsonPaths.resolve(document, path).isEmpty() != shouldExist;
            case "$gt":
                return range(path, operator, operand, c -> c > 0);
            case "$gte":
                return range(path, operator, operand, c -> c >= 0);
            case "$lt":
                return range(path, operator, operand, c -> c < 0);
            case "$lte":
                return range(path, operator, operand, c -> c <= 0);
            case "$type":
                return field(path, ofType(operand));
            case "$in":
                return field(path, in(operand));
            default:
                throw unsupported(operator);
        }
    }

    private static Predicate<BsonDocument> range(String path, String operator, BsonValue bound, IntPredicate accepts) {
        if (!BsonComparison.isRangeComparable(bound)) {
            throw new IllegalArgumentException(
                    operator + " compares with a number, a string or a date, not " + BsonTypes.describe(bound));
        }
        return field(
                path,
                values -> BsonPaths.withElements(values).stream()
                        .anyMatch(v -> BsonComparison.compare(v, bound)
                                .map(accepts::test)
                                .orElse(false)));
    }

    private static Predicate<List<BsonValue>> ofType(BsonValue operand) {
        List<Set<BsonType>> wanted = new ArrayList<>();
        for (BsonValue spec : operand.isArray() ? operand.asArray() : List.of(operand)) {
            wanted.add(BsonTypes.fromTypeSpec(spec));
        }
        // A whole array matches "array"; its elements match their own types (MongoDB 3.6+).
        return values -> BsonPaths.withElements(values).stream()
                .anyMatch(v -> wanted.stream().anyMatch(types -> types.contains(v.getBsonType())));
    }

    private static Predicate<List<BsonValue>> in(BsonValue operand) {
        if (!operand.isArray()) {
            throw new IllegalArgumentException("$in needs an array, not " + BsonTypes.describe(operand));
        }
        List<Predicate<List<BsonValue>>> alternatives = new ArrayList<>();
        for (BsonValue element : operand.asArray()) {
            alternatives.add(equalTo(checkLiteral(element)));
        }
        return values -> alternatives.stream().anyMatch(alternative -> alternative.test(values));
    }

    /**
     * MongoDB equality: some value at the path, or some element of an array there, equals {@code expected};
     * {@code null} also matches a missing field.
     */
    private static Predicate<List<BsonValue>> equalTo(BsonValue expected) {
        if (expected.isNull()) {
            return values ->
                    values.isEmpty() || BsonPaths.withElements(values).stream().anyMatch(BsonValue::isNull);
        }
        return values -> BsonPaths.withElements(values).stream().anyMatch(v -> BsonComparison.queryEquals(v, expected));
    }

    /**
     * A value compared by equality must be a literal ({@link Literals}): a regular expression would be a pattern
     * match, which this subset does not offer, and the sink guard refuses what is not literal in a delete filter.
     */
    private static BsonValue checkLiteral(BsonValue value) {
        Literals.problem(value).ifPresent(problem -> {
            throw new IllegalArgumentException(
                    "A partial filter compares literal values; " + BsonTypes.describe(value) + " is " + problem);
        });
        return value;
    }

    private static boolean truthy(BsonValue operand) {
        if (operand.isBoolean()) {
            return operand.asBoolean().getValue();
        }
        if (operand.isNumber()) {
            return operand.asNumber().doubleValue() != 0;
        }
        throw new IllegalArgumentException("$exists needs true or false, not " + BsonTypes.describe(operand));
    }

    private static Predicate<BsonDocument> field(String path, Predicate<List<BsonValue>> valuesMatch) {
        return document -> valuesMatch.test(BsonPaths.resolve(document, path));
    }

    private static Predicate<BsonDocument> allOf(List<Predicate<BsonDocument>> clauses) {
        return document -> clauses.stream().allMatch(clause -> clause.test(document));
    }

    private static Predicate<BsonDocument> anyOf(List<Predicate<BsonDocument>> clauses) {
        return document -> clauses.stream().anyMatch(clause -> clause.test(document));
    }

    private static IllegalArgumentException unsupported(String operator) {
        return new IllegalArgumentException("Unsupported partial filter operator " + operator
                + "; supported: equality, $eq, $exists, $gt, $gte, $lt, $lte, $type, $in, $and, $or");
    }
}
