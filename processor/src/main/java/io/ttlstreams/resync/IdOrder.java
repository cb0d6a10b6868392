package io.ttlstreams.resync;

import com.mongodb.client.model.Filters;
import com.mongodb.client.model.Sorts;
import io.ttlstreams.rules.BsonTypes;
import java.util.ArrayList;
import java.util.List;
import org.bson.BsonArray;
import org.bson.BsonDocument;
import org.bson.BsonString;
import org.bson.BsonType;
import org.bson.BsonValue;
import org.bson.conversions.Bson;

/**
 * The order a resync reads a collection in, ascending {@code _id} (the {@code _id} index, which every collection has),
 * and the filter that picks up after a given {@code _id}: what a read that lost its cursor resumes with.
 *
 * <p>MongoDB sorts values of different types by its comparison order (numbers, then strings, objects, binary data,
 * ObjectIds, ...), but a query's {@code $gt} only matches values of the operand's own type bracket. So "after
 * {@code last}" is {@code $gt: last} within its bracket, or a type that is not among the brackets up to {@code last}'s.
 * The brackets are named by their {@code $type} aliases; the deprecated types (symbol, JavaScript, DBPointer), which not every MongoDB-compatible server knows by name, are named nowhere and therefore always count as
 * after: a resumed read may read such a document again, it never skips one.
 */
final class IdOrder {

    /** The read's order. */
    static final Bson SORT = Sorts.ascending("_id");

    /** MongoDB's comparison order of BSON types, by bracket (the types a bracket compares across). */
    private static final List<List<BsonType>> BRACKETS = List.of(
            List.of(BsonType.MIN_KEY),
            List.of(BsonType.NULL),
            List.of(BsonType.INT32, BsonType.INT64, BsonType.DOUBLE, BsonType.DECIMAL128),
            List.of(BsonType.STRING),
            List.of(BsonType.DOCUMENT),
            List.of(BsonType.ARRAY),
            List.of(BsonType.BINARY),
            List.of(BsonType.OBJECT_ID),
            List.of(BsonType.BOOLEAN),
            List.of(BsonType.DATE_TIME),
            List.of(BsonType.TIMESTAMP),
            List.of(BsonType.REGULAR_EXPRESSION),
            List.of(BsonType.MAX_KEY));

    private IdOrder() {}

    /**
     * The documents whose {@code _id} comes strictly after {@code last} in {@link #SORT}'s order, and possibly some of a
     * deprecated type that do not: a superset, never a subset. {@code last} is only ever the operand of {@code $gt},
     * which compares with it as a literal whatever it holds.
     */
    static Bson after(BsonValue last) {
        int bracket = bracketOf(last.getBsonType());
        List<BsonValue> upToLast = new ArrayList<>();
        for (int i = 0; i <= bracket && i < BRACKETS.size(); i++) {
            BRACKETS.get(i).forEach(type -> upToLast.add(new BsonString(BsonTypes.alias(type))));
        }
        // NaN sorts below every number, but $gt: NaN matches none: every other number of the bracket is >= -Infinity.
        Bson sameBracket = isNaN(last) ? Filters.gte("_id", Double.NEGATIVE_INFINITY) : Filters.gt("_id", last);
        Bson laterBracket =
                new BsonDocument("_id", new BsonDocument("$not", new BsonDocument("$type", new BsonArray(upToLast))));
        return Filters.or(sameBracket, laterBracket);
    }

    /** The bracket of {@code type}; a deprecated type is placed after all named brackets. */
    private static int bracketOf(BsonType type) {
        for (int i = 0; i < BRACKETS.size(); i++) {
            if (BRACKETS.get(i).contains(type)) {
                return i;
            }
        }
        if (type == BsonType.SYMBOL) {
            return BRACKETS.indexOf(List.of(BsonType.STRING));
        }
        return BRACKETS.size(); // DBPointer, JavaScript: after regular expressions (MongoDB refuses undefined as _id)
    }

    private static boolean isNaN(BsonValue value) {
        return (value.isDouble() && Double.isNaN(value.asDouble().getValue()))
                || (value.isDecimal128() && value.asDecimal128().getValue().isNaN());
    }
}
