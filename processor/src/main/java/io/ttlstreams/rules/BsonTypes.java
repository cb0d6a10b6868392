package io.ttlstreams.rules;

import java.util.EnumMap;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import org.bson.BsonDocument;
import org.bson.BsonType;
import org.bson.BsonValue;
import org.bson.json.JsonMode;
import org.bson.json.JsonWriterSettings;

/** MongoDB's names for BSON types, as {@code $type} accepts them and as reasons print them. */
public final class BsonTypes {

    /** The numeric types, which MongoDB compares with each other by value. */
    static final Set<BsonType> NUMBERS =
            EnumSet.of(BsonType.INT32, BsonType.INT64, BsonType.DOUBLE, BsonType.DECIMAL128);

    private static final Map<BsonType, String> ALIASES = new EnumMap<>(BsonType.class);

    static {
        ALIASES.put(BsonType.DOUBLE, "double");
        ALIASES.put(BsonType.STRING, "string");
        ALIASES.put(BsonType.DOCUMENT, "object");
        ALIASES.put(BsonType.ARRAY, "array");
        ALIASES.put(BsonType.BINARY, "binData");
        ALIASES.put(BsonType.UNDEFINED, "undefined");
        ALIASES.put(BsonType.OBJECT_ID, "objectId");
        ALIASES.put(BsonType.BOOLEAN, "bool");
        ALIASES.put(BsonType.DATE_TIME, "date");
        ALIASES.put(BsonType.NULL, "null");
        ALIASES.put(BsonType.REGULAR_EXPRESSION, "regex");
        ALIASES.put(BsonType.DB_POINTER, "dbPointer");
        ALIASES.put(BsonType.JAVASCRIPT, "javascript");
        ALIASES.put(BsonType.SYMBOL, "symbol");
        ALIASES.put(BsonType.JAVASCRIPT_WITH_SCOPE, "javascriptWithScope");
        ALIASES.put(BsonType.INT32, "int");
        ALIASES.put(BsonType.TIMESTAMP, "timestamp");
        ALIASES.put(BsonType.INT64, "long");
        ALIASES.put(BsonType.DECIMAL128, "decimal");
        ALIASES.put(BsonType.MIN_KEY, "minKey");
        ALIASES.put(BsonType.MAX_KEY, "maxKey");
    }

    private static final Map<String, Set<BsonType>> BY_ALIAS = new LinkedHashMap<>();

    static {
        ALIASES.forEach((type, alias) -> BY_ALIAS.put(alias, EnumSet.of(type)));
        BY_ALIAS.put("number", NUMBERS);
    }

    private static final JsonWriterSettings RELAXED =
            JsonWriterSettings.builder().outputMode(JsonMode.RELAXED).build();

    private BsonTypes() {}

    /** MongoDB's alias of {@code type}, e.g. "date" or "long"; null for a type MongoDB has no alias of. */
    public static String alias(BsonType type) {
        return ALIASES.get(type);
    }

    /** {@link #alias} of its type as a noun phrase ("an int", "a date", but plain "null"). */
    static String withArticle(BsonValue value) {
        if (value.isNull()) {
            return "null";
        }
        String alias = alias(value.getBsonType());
        return ("aeiou".indexOf(alias.charAt(0)) >= 0 ? "an " : "a ") + alias;
    }

    /** {@code value} for a sentence: its type and its relaxed extended JSON, e.g. {@code a double (20.5)}. */
    static String describe(BsonValue value) {
        // The JSON writer renders values only inside a document, so render one and cut the value back out.
        String json = new BsonDocument("v", value).toJson(RELAXED);
        return withArticle(value) + " ("
                + json.substring(json.indexOf(':') + 1, json.length() - 1).trim() + ")";
    }

    /**
     * The types a {@code $type} alias ("date", "number") or numeric code (9, -1 for minKey) stands for.
     *
     * @throws IllegalArgumentException when it stands for none
     */
    static Set<BsonType> fromTypeSpec(BsonValue spec) {
        if (spec.isString()) {
            Set<BsonType> types = BY_ALIAS.get(spec.asString().getValue());
            if (types == null) {
                throw new IllegalArgumentException(
                        "Unknown $type alias '" + spec.asString().getValue() + "'; expected one of "
                                + String.join(", ", BY_ALIAS.keySet()) + " or a numeric code");
            }
            return types;
        }
        if (spec.isNumber() && spec.asNumber().doubleValue() == spec.asNumber().intValue()) {
            int code = spec.asNumber().intValue();
            for (BsonType type : ALIASES.keySet()) {
                if (type.getValue() == code || (byte) type.getValue() == code) {
                    return EnumSet.of(type);
                }
            }
        }
        throw new IllegalArgumentException(
                "Invalid $type " + describe(spec) + ": expected a type alias or a numeric code");
    }
}
