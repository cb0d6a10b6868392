package io.ttlstreams.contract;

import java.util.Map;
import java.util.Optional;
import org.bson.BsonType;
import org.bson.BsonValue;

/**
 * What counts as a literal value in a delete filter: one that a MongoDB query compares as data. A regular expression
 * would match by pattern, undefined is no value, and a document with a field name starting with {@code $} would be
 * read as an operator. The sink guard refuses anything else, so the rules refuse it too, when they are configured.
 */
public final class Literals {

    private Literals() {}

    /** Why {@code value} is not a literal (a phrase to follow "it is" or "it holds"); empty when it is one. */
    public static Optional<String> problem(BsonValue value) {
        if (value.isRegularExpression()) {
            return Optional.of("a regular expression, which would match by pattern");
        }
        if (value.getBsonType() == BsonType.UNDEFINED) {
            return Optional.of("undefined, which is no literal value");
        }
        if (value.isDocument()) {
            for (Map.Entry<String, BsonValue> field : value.asDocument().entrySet()) {
                if (field.getKey().startsWith("$")) {
                    return Optional.of("a document holding '" + field.getKey()
                            + "': a field name starting with $ would be read as an operator");
                }
                Optional<String> nested = problem(field.getValue());
                if (nested.isPresent()) {
                    return nested;
                }
            }
        } else if (value.isArray()) {
            for (BsonValue element : value.asArray()) {
                Optional<String> nested = problem(element);
                if (nested.isPresent()) {
                    return nested;
                }
            }
        }
        return Optional.empty();
    }
}
