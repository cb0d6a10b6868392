package io.ttlstreams.contract;

import org.bson.BsonDocument;

/**
 * Parses extended JSON as {@link BsonDocument#parse} does (the MongoDB sink connector's own parser), but within
 * {@link BoundedJson}'s nesting limit and refusing a field name that appears twice in one document: {@code
 * BsonDocument.parse} keeps the last value, another reader could keep the first, and a check must never look at a
 * different document than the one that gets applied.
 */
final class StrictJson {

    private StrictJson() {}

    /**
     * @param what names the text in the error, e.g. "record key"
     * @throws InvalidDeleteCommandException when {@code json} is not one extended-JSON document within the nesting
     *     limit, or repeats a name
     */
    static BsonDocument parse(String json, String what) {
        try {
            return BoundedJson.parse(json, BoundedJson.MAX_DEPTH, true);
        } catch (BoundedJson.RepeatedNameException e) {
            throw new InvalidDeleteCommandException(
                    "the " + what + " repeats field '" + e.path() + "': a command must be unambiguous");
        } catch (RuntimeException e) {
            // Not only JsonParseException: a malformed {"$oid": "zz"} or NumberDecimal("x") throws others.
            throw new InvalidDeleteCommandException(
                    "the " + what + " is not an extended-JSON document: " + e.getMessage());
        }
    }
}
